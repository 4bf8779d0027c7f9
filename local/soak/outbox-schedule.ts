/**
 * An outbox schedule's parts (docs/fault-tolerance.md#outbox-schedules): before the run, the schedule's
 * emissions and relay faults (outbox-plan.ts) and its outbox table with the relay (outbox-relay-run.ts);
 * after the consumer has committed every partition, the relay drained and the outbox's invariants
 * checked against the inbox rows the consumer completed.
 */
import { INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import { type OutboxPlan, outboxPlanFromSeed } from './outbox-plan.js';
import { type OutboxFigures, OutboxRun, type RelayHooks } from './outbox-relay-run.js';
import type { RunState } from './run-state.js';
import type { Schedule } from './schedule.js';
import type { SoakTarget } from './schedule-result.js';

export interface OpenedOutbox {
  readonly consumer: string;
  readonly plan: OutboxPlan;
  readonly run: OutboxRun;
  /** Bound to the run state's recorder and clock once they exist. */
  readonly hooks: RelayHooks;
}

/** Keeps outbox tables and consumer names unique when a seed comes up twice in one process. */
let outboxRuns = 0;

export async function openOutbox(
  schedule: Schedule,
  target: SoakTarget,
  runId: string,
): Promise<OpenedOutbox> {
  if (target.store === 'postgres' || target.store === 'redis') {
    throw new Error(
      'outbox schedules run on DynamoDB only (the Postgres relay is not under the soak; Redis has no outbox)',
    );
  }
  const consumer = `soak-${runId}-${schedule.seed}-o${outboxRuns++}`;
  const plan = outboxPlanFromSeed(schedule.seed, schedule.events.length);
  const hooks: RelayHooks = { count: () => undefined, nowMs: () => Date.now() };
  const run = await OutboxRun.open({
    endpoint: target.endpoint,
    tableName: `outbox-${consumer}`,
    plan,
    consumer,
    events: schedule.events.length,
    hooks,
  });
  return { consumer, plan, run, hooks };
}

/** The relay drained, then the invariants; violations go to the schedule's recorder. */
export async function checkOutbox(state: RunState): Promise<OutboxFigures | undefined> {
  const outbox = state.outbox;
  if (!outbox) return undefined;
  if (!(await outbox.run.drain())) {
    state.recorder.violate('outbox-liveness', 'the relay never relayed the outbox stream to its end');
  }
  const dedupKeys = state.schedule.events.map((_, i) => state.workload.eventId(i));
  const stored = await state.store.read({
    consumer: state.workload.consumer,
    dedupKeys,
    quarantinedCoordinates: [],
    orderIds: [],
    accountIds: [],
  });
  const completed = dedupKeys.filter((key) => stored.dedupRows.get(key)?.status === INBOX_STATUS.completed);
  const { violations, figures } = await outbox.run.check(completed);
  for (const violation of violations) state.recorder.violate(violation.invariant, violation.detail);
  return figures;
}
