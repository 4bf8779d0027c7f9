/**
 * The soak's driver: a small ESM of its own, because each step must run on virtual time under the
 * schedule's control. Events are built by the emulator's buildMskEvent and responses read by its
 * interpretResponse; per partition it commits as Lambda does (checkpoints, shared with the emulator) and
 * redelivers from there; a crash, a thrown error or a timeout redelivers the whole batch.
 */
import { checkpoints, interpretResponse } from '../esm/batch-response.js';
import { createLambdaContext, type LambdaContext } from '../esm/lambda-function.js';
import { buildMskEvent, type MskEvent, type MskEventEnvelope } from '../esm/msk-event.js';
import type { SourceRecord } from '../esm/record-source.js';
import { Attempt, AttemptCrashedError, currentAttempt } from './attempt.js';
import { type Container, newContainer } from './consumer-under-test.js';
import type { InvocationChecks } from './invocation-checks.js';
import type { RunState } from './run-state.js';
import {
  type AttemptPlan,
  BEYOND_BOUND_SKEW_MS,
  EPOCH_MS,
  FUNCTION_TIMEOUT_MS,
  LEASE_MARGIN_MS,
  type RoundPlan,
  SKEW_BOUND_MS,
  type StallPlan,
} from './schedule.js';

/** Settle rounds without faults before a schedule counts as stuck. */
const MAX_SETTLE_ROUNDS = 40;

type InvocationResult =
  | { readonly kind: 'returned'; readonly response: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'crashed'; readonly point: string };

export class Driver {
  readonly #state: RunState;
  readonly #checks: InvocationChecks;
  readonly #envelope: MskEventEnvelope = {
    eventSource: 'aws:kafka',
    eventSourceArn:
      'arn:aws:kafka:us-east-1:123456789012:cluster/soak/6f2b1c0e-1d2a-4c57-9a0e-6c1f3b4d5e6f-1',
    bootstrapServers: 'memory:9092',
  };
  /** The mapping's warm execution environment; a new one after a crash. */
  #container: Container | undefined;

  constructor(state: RunState, checks: InvocationChecks) {
    this.#state = state;
    this.#checks = checks;
  }

  /** Delivers until every partition is committed to its end; false when it never gets there. */
  async drive(): Promise<boolean> {
    const { rounds } = this.#state.schedule;
    const skew = this.#state.schedule.beyondBound ? BEYOND_BOUND_SKEW_MS : SKEW_BOUND_MS;
    const settle: RoundPlan = {
      batchSize: 16,
      partitionMask: 15,
      primary: { skewMs: 0, storeFaults: [], outage: false },
      // Long enough for any lease, however skewed its writer's clock was, to run out.
      advanceMs: FUNCTION_TIMEOUT_MS + LEASE_MARGIN_MS + 2 * skew + 1_000,
    };
    for (let round = 0; ; round++) {
      if (this.#caughtUp()) return true;
      const plan = rounds[round];
      if (!plan) {
        if (this.#state.counters.settleRounds >= MAX_SETTLE_ROUNDS) return false;
        this.#state.counters.settleRounds++;
      }
      await this.#round(round, plan ?? settle);
      // Outbox schedules: one relay invocation between rounds, so removals meet fresh appends.
      await this.#state.outbox?.run.step();
    }
  }

  #caughtUp(): boolean {
    return this.#state.log
      .topicPartitions([this.#state.schedule.topic])
      .every(
        (tp) =>
          (this.#state.log.committedOffset(this.#state.workload.consumer, tp) ?? 0) >=
          this.#state.log.endOffset(tp),
      );
  }

  /** Records from each polled partition's committed offset, at most `batchSize` in all. */
  #poll(plan: RoundPlan, round: number): SourceRecord[] {
    const all = this.#state.log.topicPartitions([this.#state.schedule.topic]);
    const pending = all.filter(
      (tp) =>
        (this.#state.log.committedOffset(this.#state.workload.consumer, tp) ?? 0) <
        this.#state.log.endOffset(tp),
    );
    const masked = pending.filter((tp) => (plan.partitionMask >> tp.partition) & 1);
    const polled = masked.length > 0 ? masked : pending;
    const start = round % polled.length;
    const ordered = [...polled.slice(start), ...polled.slice(0, start)];
    const records: SourceRecord[] = [];
    for (const tp of ordered) {
      const left = plan.batchSize - records.length;
      if (left <= 0) break;
      records.push(
        ...this.#state.log.read(
          tp,
          this.#state.log.committedOffset(this.#state.workload.consumer, tp) ?? 0,
          left,
        ),
      );
    }
    return records;
  }

  /**
   * One delivery. The primary runs in the mapping's warm container, which lasts until it crashes; a
   * companion runs in an execution environment of its own.
   */
  async #round(round: number, plan: RoundPlan): Promise<void> {
    this.#container ??= newContainer(this.#state);
    const container = this.#container;
    const records = this.#poll(plan, round);
    const event = buildMskEvent(this.#envelope, records);
    const primary = this.#attempt(`r${round}-primary`, 'primary', plan.primary);
    const companionPlan = plan.companion;
    const companionEvent = companionPlan ? this.#overlapping(event, companionPlan.fromShare) : undefined;
    const companion =
      companionPlan && companionEvent
        ? this.#attempt(`r${round}-companion`, 'companion', companionPlan.attempt, companionPlan.stall)
        : undefined;
    this.#state.recorder.trace(
      `round ${round} @${this.#state.time.nowMs - EPOCH_MS}ms: ${describeEvent(event)}`,
    );

    let primaryResult: InvocationResult;
    if (companion && companionEvent) {
      this.#state.recorder.count('concurrent-invocation');
      const companionContainer = newContainer(this.#state);
      const companionRun = this.#invoke(companionContainer, companion, companionEvent);
      let companionResult: InvocationResult | undefined;
      if (companionPlan?.stall) {
        // Let the companion reach its stall point (or finish), move true time on, run the primary, release it.
        await Promise.race([companion.stalled, companionRun]);
        if (companion.hasStalled) this.#state.time.advance(companionPlan.stall.advanceMs);
        primaryResult = await this.#invoke(container, primary, event);
        companion.release();
        companionResult = await companionRun;
      } else {
        [primaryResult, companionResult] = await Promise.all([
          this.#invoke(container, primary, event),
          companionRun,
        ]);
      }
      // An overlapping invocation's environment is never invoked again.
      await companionContainer.retire();
      this.#settleCompanion(companion, companionEvent, companionResult);
    } else {
      primaryResult = await this.#invoke(container, primary, event);
    }
    this.#settlePrimary(primary, event, primaryResult);
    if (primary.dead) {
      this.#container = undefined;
      await container.retire();
    }
    this.#state.time.advance(plan.advanceMs);
  }

  #attempt(id: string, role: Attempt['role'], plan: AttemptPlan, stall?: StallPlan): Attempt {
    const attempt = new Attempt({
      id,
      role,
      plan,
      ...(stall ? { stall } : {}),
      time: this.#state.time,
      timeoutMs: FUNCTION_TIMEOUT_MS,
      countFault: (kind) => this.#state.recorder.count(kind),
    });
    if (plan.skewMs !== 0) this.#state.recorder.count('clock-skew');
    return attempt;
  }

  /** Per partition, the batch's records from `share` of the way in. */
  #overlapping(event: MskEvent, share: number): MskEvent | undefined {
    const records: Record<string, MskEvent['records'][string]> = {};
    for (const [key, list] of Object.entries(event.records)) {
      const suffix = list.slice(Math.floor(list.length * share));
      if (suffix.length > 0) records[key] = suffix;
    }
    return Object.keys(records).length > 0 ? { ...event, records } : undefined;
  }

  async #invoke(container: Container, attempt: Attempt, event: MskEvent): Promise<InvocationResult> {
    this.#state.counters.invocations++;
    this.#state.counters.deliveredRecords += Object.values(event.records).reduce(
      (n, list) => n + list.length,
      0,
    );
    return currentAttempt.run(attempt, async () => {
      let response: unknown;
      let error: unknown;
      try {
        response = await container.invoke(event, lambdaContext(attempt));
      } catch (thrown) {
        error = thrown;
      }
      if (!attempt.dead && error === undefined && attempt.plan.crash?.point === 'before-response') {
        attempt.fault('crash:before-response');
        try {
          attempt.die('before-response');
        } catch {}
      }
      if (attempt.dead) return { kind: 'crashed', point: attempt.deathPoint ?? 'unknown' };
      // Lambda ends an invocation at its deadline: whatever it returns after that is lost.
      if (!attempt.alive) return { kind: 'crashed', point: 'timed out' };
      if (error !== undefined) return { kind: 'threw', error };
      return { kind: 'returned', response };
    });
  }

  #settlePrimary(attempt: Attempt, event: MskEvent, result: InvocationResult): void {
    this.#state.recorder.trace(`  primary ${attempt.id}: ${describeResult(result)}`);
    if (result.kind === 'threw') {
      this.#state.recorder.violate(
        'handler-never-throws',
        `${attempt.id} threw ${describeError(result.error)}`,
      );
      return;
    }
    if (result.kind === 'crashed') return;
    const outcomes = this.#checks.checkInvocation(attempt, event, result.response);
    if (!outcomes) return;
    const verdict = interpretResponse(event, result.response);
    if (verdict.kind === 'invalid') return;
    for (const { key, topicPartition, commitOffset } of checkpoints(event, verdict)) {
      this.#state.log.commit(this.#state.workload.consumer, topicPartition, commitOffset);
      for (const record of event.records[key] ?? []) {
        if (record.offset >= commitOffset) break;
        const coordinates = `${key}@${record.offset}`;
        const outcome = outcomes.get(coordinates);
        if (outcome) this.#state.finalOutcomes.set(coordinates, outcome);
      }
    }
  }

  #settleCompanion(attempt: Attempt, event: MskEvent, result: InvocationResult): void {
    this.#state.recorder.trace(`  companion ${attempt.id}: ${describeResult(result)}`);
    if (result.kind === 'threw') {
      this.#state.recorder.violate(
        'handler-never-throws',
        `${attempt.id} threw ${describeError(result.error)}`,
      );
      return;
    }
    // Its response is fenced off (or lost): only its shape is checked.
    if (result.kind === 'returned') this.#checks.checkInvocation(attempt, event, result.response);
  }
}

/** The handler's context; remaining time runs on true (virtual) time. */
function lambdaContext(attempt: Attempt): LambdaContext {
  return createLambdaContext(
    { functionName: 'order-consumer' },
    { requestId: attempt.id, remainingMs: () => attempt.remainingMs() },
  );
}

function describeEvent(event: MskEvent): string {
  return Object.entries(event.records)
    .map(([key, list]) => `${key}@${list[0]?.offset}..${list.at(-1)?.offset}`)
    .join(' ');
}

function describeResult(result: InvocationResult): string {
  switch (result.kind) {
    case 'crashed':
      return `crashed (${result.point})`;
    case 'threw':
      return `threw ${describeError(result.error)}`;
    case 'returned': {
      const failures = (result.response as { batchItemFailures?: { itemIdentifier: unknown }[] })
        ?.batchItemFailures;
      return `returned ${failures?.length ?? 0} failures ${JSON.stringify(failures?.map((f) => f.itemIdentifier))}`;
    }
  }
}

function describeError(error: unknown): string {
  if (error instanceof AttemptCrashedError) return `a crash (${error.message})`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
