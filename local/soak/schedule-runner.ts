/**
 * Runs one fault schedule against the store under test (DynamoDB Local, Postgres or Redis) and checks the
 * promise: no double effect, nothing lost.
 *
 * The consumer under test is the real code (consumer-under-test.ts); the log is the ESM emulator's
 * InMemoryLog; the driver (driver.ts) delivers on virtual time under the schedule's control; the checks
 * run on every answer (invocation-checks.ts) and on the end state (final-state.ts).
 */
import type { OutcomeStatus } from '../../lambdas/core/outcome.js';
import { InMemoryLog } from '../esm/in-memory-log.js';
import { VirtualTime } from './attempt.js';
import { Driver } from './driver.js';
import { dynamoDbSoakStore } from './dynamodb-soak-store.js';
import { ExternalLedger } from './external-ledger.js';
import { FinalState } from './final-state.js';
import { InvocationChecks } from './invocation-checks.js';
import { Journal, Sequence } from './journal.js';
import { checkOutbox, type OpenedOutbox, openOutbox } from './outbox-schedule.js';
import { postgresSoakStore } from './postgres-soak-store.js';
import { redisSoakStore } from './redis-soak-store.js';
import { Recorder, type RunState } from './run-state.js';
import { EPOCH_MS, type RecordSpec, type Schedule } from './schedule.js';
import type { ScheduleResult, SoakTarget, WindowCause } from './schedule-result.js';
import type { SoakStore, StoreMutation } from './soak-store.js';
import { Workload } from './workload.js';

export type { ScheduleResult, SoakTarget, Violation, WindowCause } from './schedule-result.js';

export interface RunOptions {
  /** Distinguishes this run's rows from any other run's on shared tables. */
  readonly runId: string;
  /** Collect a step-by-step trace (replays). */
  readonly trace?: boolean;
  /**
   * Deliberate breakage, for the harness's own tests only (they prove the invariants can fail):
   * `unconditional-claim` drops the inbox condition; `ack-everything` answers every batch as a success.
   */
  readonly mutation?: StoreMutation | 'ack-everything';
  /**
   * Outbox schedules (DynamoDB only): the consumer emits events to an outbox table of the schedule's own,
   * and the relay runs between its rounds with its own faults (outbox-schedule.ts).
   */
  readonly outbox?: boolean;
}

/** Keeps consumer names unique when a seed comes up twice in one process. */
let scheduleRuns = 0;

export async function runSchedule(
  schedule: Schedule,
  target: SoakTarget,
  options: RunOptions,
): Promise<ScheduleResult> {
  const outbox = options.outbox ? await openOutbox(schedule, target, options.runId) : undefined;
  const state = newRunState(schedule, target, options, outbox);
  try {
    await produce(state);
    await seedRows(state);
    const converged = await new Driver(state, new InvocationChecks(state)).drive();
    const finalState = new FinalState(state);
    if (converged) await finalState.check();
    else state.recorder.violate('liveness', 'records still uncommitted after the faults stopped');
    const outboxFigures = state.outbox && converged ? await checkOutbox(state) : undefined;
    return {
      ...scheduleResult(state, finalState),
      ...(outboxFigures ? { outbox: outboxFigures } : {}),
    };
  } finally {
    await state.store.close();
    await outbox?.run.close();
  }
}

function newRunState(
  schedule: Schedule,
  target: SoakTarget,
  options: RunOptions,
  outbox: OpenedOutbox | undefined,
): RunState {
  const workload = new Workload(schedule, outbox?.consumer ?? consumerName(schedule, options.runId));
  const time = new VirtualTime(EPOCH_MS);
  const sequence = new Sequence();
  const journal = new Journal(sequence);
  const recorder = new Recorder(schedule.seed, options.trace ?? false);
  if (outbox) {
    outbox.hooks.count = recorder.count;
    outbox.hooks.nowMs = () => time.nowMs;
  }
  const mutation = options.mutation === 'unconditional-claim' ? options.mutation : undefined;
  return {
    schedule,
    workload,
    target,
    time,
    journal,
    ledger: new ExternalLedger(sequence),
    store: soakStore(schedule, target, journal, mutation),
    log: new InMemoryLog({ topics: { [schedule.topic]: schedule.partitions }, now: () => time.nowMs }),
    mutation: options.mutation,
    recorder,
    records: new Map(),
    finalOutcomes: new Map(),
    outcomes: new Map(),
    counters: { invocations: 0, deliveredRecords: 0, settleRounds: 0 },
    ...(outbox ? { outbox: { plan: outbox.plan, run: outbox.run } } : {}),
  };
}

function consumerName(schedule: Schedule, runId: string): string {
  return `${consumerNamePrefix(runId)}${schedule.seed}-${scheduleRuns++}`;
}

/** How every consumer name of a run begins: what its rows on a shared server are found by. */
export function consumerNamePrefix(runId: string): string {
  return `soak-${runId}-`;
}

async function produce(state: RunState): Promise<void> {
  const { schedule, workload } = state;
  const produced = schedule.records.map((spec, index) => workload.produced(spec, index));
  const written = await state.log.produce(produced);
  written.forEach((coordinates, index) => {
    const spec = schedule.records[index] as RecordSpec;
    const key = `${coordinates.topic}-${coordinates.partition}@${coordinates.offset}`;
    state.records.set(key, { spec, coordinates: key, value: produced[index]?.value ?? null });
  });
}

function soakStore(
  schedule: Schedule,
  target: SoakTarget,
  journal: Journal,
  mutation: StoreMutation | undefined,
): SoakStore {
  switch (target.store) {
    case 'postgres':
      return postgresSoakStore(target, journal, mutation);
    case 'redis':
      return redisSoakStore(target, journal, mutation, schedule.redisClient ?? 'settings');
    default:
      return dynamoDbSoakStore(target, journal, mutation);
  }
}

async function seedRows(state: RunState): Promise<void> {
  for (const row of state.schedule.seededRows) {
    await state.store.seed(state.workload.consumer, state.workload.seededItem(row));
    state.recorder.count(`seeded:${row.kind}`);
  }
}

function scheduleResult(state: RunState, finalState: FinalState): ScheduleResult {
  const { schedule, workload, recorder } = state;
  const finalOutcomes: Partial<Record<OutcomeStatus, number>> = {};
  for (const outcome of state.finalOutcomes.values()) {
    finalOutcomes[outcome.status] = (finalOutcomes[outcome.status] ?? 0) + 1;
  }
  const windowHits: Partial<Record<WindowCause, number>> = {};
  let extraApplications = 0;
  if (schedule.mode === 'side-effect') {
    schedule.events.forEach((_, i) => {
      const key = workload.eventId(i);
      const applications = state.ledger.applicationsOf(key);
      extraApplications += Math.max(0, applications.length - 1);
      for (const application of applications.slice(0, -1)) {
        const cause = finalState.windowCause(application.attempt, key, application.timedOutAfterApply);
        if (cause) windowHits[cause] = (windowHits[cause] ?? 0) + 1;
      }
    });
  }
  const orders = schedule.records.filter((r) => r.kind === 'order');
  return {
    seed: schedule.seed,
    mode: schedule.mode,
    beyondBound: schedule.beyondBound,
    violations: recorder.violations,
    faults: recorder.faults,
    figures: {
      events: schedule.events.length,
      records: schedule.records.length,
      producerDuplicates: orders.length - schedule.events.length,
      payloadConflicts: orders.filter((r) => r.variant === 'conflict').length,
      malformedRecords: schedule.records.length - orders.length,
      seededRows: schedule.seededRows.length,
      invocations: state.counters.invocations,
      deliveredRecords: state.counters.deliveredRecords,
      settleRounds: state.counters.settleRounds,
      finalOutcomes,
      effectApplications: state.ledger.applications.length,
      extraApplications,
      windowHits,
      concurrentRuns: state.ledger.concurrentRuns.length,
      leaseTakeovers: finalState.leaseTakeovers(),
      ...groupCommits(state),
    },
    trace: recorder.traceLines,
  };
}

function groupCommits(state: RunState): { groupCommits: number; groupedRecords: number } {
  const groups = state.journal.applied((e) => e.request.operation === 'commit' && e.request.pks.length > 1);
  return {
    groupCommits: groups.length,
    groupedRecords: groups.reduce((n, e) => n + e.request.pks.length, 0),
  };
}
