/**
 * Runs one fault schedule against DynamoDB Local and checks the promise: no double effect, nothing lost.
 *
 * The consumer under test is the real code: the sample order consumer's middy handler chain (createHandler),
 * in transactional mode as deployed, and in side-effect mode with an effect that calls a recording fake of an
 * external service. The log is the ESM emulator's InMemoryLog; events are built by its buildMskEvent and
 * responses read by its interpretResponse. The driver is a small ESM of its own, because each step must run
 * on virtual time under the schedule's control: per partition it commits up to the lowest reported offset
 * and redelivers from there; a crash, a thrown error or a timeout redelivers the whole batch, as Lambda does.
 */
import { createHash } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import type { EffectPlan } from '../../lambdas/core/effect.js';
import { dedupRowKey, quarantineRowKey } from '../../lambdas/core/inbox-item.js';
import type { InboxEffectInput } from '../../lambdas/core/index.js';
import { createInboxConsumer } from '../../lambdas/core/index.js';
import { isReported, type OutcomeStatus, type RecordOutcome } from '../../lambdas/core/outcome.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import { interpretResponse } from '../esm/batch-response.js';
import { InMemoryLog } from '../esm/in-memory-log.js';
import { buildMskEvent, type MskEvent, type MskEventEnvelope } from '../esm/msk-event.js';
import type { ProducedRecord, SourceRecord } from '../esm/record-source.js';
import { type Order, ordersConsumer } from '../orders/orders-consumer.js';
import { Attempt, AttemptCrashedError, attemptClock, currentAttempt, VirtualTime } from './attempt.js';
import { ExternalLedger } from './external-ledger.js';
import { faultInjectingClient, Journal, Sequence, type StoreMutation } from './fault-injection.js';
import {
  type AttemptPlan,
  BEYOND_BOUND_SKEW_MS,
  DEADLINE_MARGIN_MS,
  DEDUP_TTL_SECONDS,
  EPOCH_MS,
  type EventSpec,
  FUNCTION_TIMEOUT_MS,
  LEASE_MARGIN_MS,
  type MalformedVariant,
  type RecordSpec,
  type RoundPlan,
  type Schedule,
  SKEW_BOUND_MS,
  type StallPlan,
} from './schedule.js';

export interface SoakTarget {
  readonly endpoint: string;
  readonly inboxTableName: string;
  readonly appTableName: string;
}

export interface Violation {
  readonly seed: number;
  readonly invariant: string;
  readonly detail: string;
}

/** Why a side-effect was applied and not recorded as completed: each such application runs again. */
export type WindowCause =
  /** The planned crash right after the external call. */
  | 'crash-after-effect'
  /** A crash at a random write (another partition's, running meanwhile) between effect and completion. */
  | 'crash-at-random-write'
  /** Any other crash between effect and completion. */
  | 'crash-elsewhere'
  /** Lambda ended the invocation at its deadline between effect and completion. */
  | 'timed-out'
  /** The completion write failed (throttling or an outage outlasting the SDK's retries). */
  | 'completion-write-failed'
  /** The external service applied the call but answered with a timeout: the engine released the claim. */
  | 'external-timeout-after-apply'
  /** Another attempt took the lease over (only beyond the skew bound). */
  | 'lease-lost';

export interface ScheduleFigures {
  readonly events: number;
  readonly records: number;
  readonly producerDuplicates: number;
  readonly payloadConflicts: number;
  readonly malformedRecords: number;
  readonly seededRows: number;
  readonly invocations: number;
  readonly deliveredRecords: number;
  readonly settleRounds: number;
  readonly finalOutcomes: Partial<Record<OutcomeStatus, number>>;
  /** Side-effect mode: calls the external service applied. */
  readonly effectApplications: number;
  /** Side-effect mode: applications beyond the first per event (the window's cost). */
  readonly extraApplications: number;
  readonly windowHits: Partial<Record<WindowCause, number>>;
  /** Side-effect mode: two live attempts inside the effect for one key (only beyond the skew bound). */
  readonly concurrentRuns: number;
  /** Claims (or commits) that took a key over from another holder's lease once it ran out. */
  readonly leaseTakeovers: number;
}

export interface ScheduleResult {
  readonly seed: number;
  readonly mode: Schedule['mode'];
  readonly beyondBound: boolean;
  readonly violations: Violation[];
  /** Faults that fired, by kind. */
  readonly faults: Record<string, number>;
  readonly figures: ScheduleFigures;
  readonly trace: string[];
}

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
}

/** Keeps consumer names unique when a seed comes up twice in one process. */
let scheduleRuns = 0;

/** Settle rounds without faults before a schedule counts as stuck. */
const MAX_SETTLE_ROUNDS = 40;

type InvocationResult =
  | { readonly kind: 'returned'; readonly response: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'crashed'; readonly point: string };

interface LogRecord {
  readonly spec: RecordSpec;
  readonly coordinates: string;
  readonly value: Buffer | null;
}

type Invoke = (event: MskEvent, context: Context) => Promise<unknown>;

export async function runSchedule(
  schedule: Schedule,
  target: SoakTarget,
  options: RunOptions,
): Promise<ScheduleResult> {
  const run = new ScheduleRun(schedule, target, options);
  try {
    return await run.execute();
  } finally {
    run.close();
  }
}

class ScheduleRun {
  readonly #schedule: Schedule;
  readonly #target: SoakTarget;
  readonly #consumer: string;
  readonly #time = new VirtualTime(EPOCH_MS);
  readonly #sequence = new Sequence();
  readonly #journal = new Journal(this.#sequence);
  readonly #ledger = new ExternalLedger(this.#sequence);
  readonly #client;
  readonly #documentClient;
  readonly #faults: Record<string, number> = {};
  readonly #violations: Violation[] = [];
  readonly #trace: string[] = [];
  readonly #tracing: boolean;
  readonly #log: InMemoryLog;
  readonly #records = new Map<string, LogRecord>();
  readonly #finalOutcomes = new Map<string, RecordOutcome>();
  readonly #outcomes = new Map<Attempt, readonly RecordOutcome[]>();
  readonly #attempts: Attempt[] = [];
  readonly #envelope: MskEventEnvelope = {
    eventSource: 'aws:kafka',
    eventSourceArn:
      'arn:aws:kafka:us-east-1:123456789012:cluster/soak/6f2b1c0e-1d2a-4c57-9a0e-6c1f3b4d5e6f-1',
    bootstrapServers: 'memory:9092',
  };
  readonly #mutation: RunOptions['mutation'];
  #container: Invoke | undefined;
  #invocations = 0;
  #deliveredRecords = 0;
  #settleRounds = 0;

  constructor(schedule: Schedule, target: SoakTarget, options: RunOptions) {
    this.#schedule = schedule;
    this.#target = target;
    this.#tracing = options.trace ?? false;
    // Scopes the inbox rows (CONSUMER_NAME) and prefixes the app table's keys: schedules share two tables.
    this.#consumer = `soak-${options.runId}-${schedule.seed}-${scheduleRuns++}`;
    this.#mutation = options.mutation;
    this.#client = faultInjectingClient(
      target.endpoint,
      this.#journal,
      this.#mutation === 'unconditional-claim' ? this.#mutation : undefined,
    );
    this.#documentClient = DynamoDBDocumentClient.from(this.#client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.#log = new InMemoryLog({
      topics: { [schedule.topic]: schedule.partitions },
      now: () => this.#time.nowMs,
    });
  }

  close(): void {
    this.#client.destroy();
  }

  async execute(): Promise<ScheduleResult> {
    await this.#produce();
    await this.#seedRows();
    const converged = await this.#drive();
    if (converged) await this.#checkFinalState();
    else this.#violate('liveness', 'records still uncommitted after the faults stopped');
    return this.#result();
  }

  get #mode() {
    return this.#schedule.mode;
  }

  // ── the workload ────────────────────────────────────────────────────────────────────────────────

  #orderValue(event: number, variant: 'original' | 'conflict'): Buffer {
    const spec = this.#event(event);
    const amount = variant === 'conflict' ? (spec.conflictAmount ?? spec.amount) : spec.amount;
    return Buffer.from(
      JSON.stringify({
        event_id: this.#eventId(event),
        type: 'OrderPlaced',
        order_id: this.#orderId(event),
        account_id: this.#accountId(spec.account),
        amount,
      }),
    );
  }

  #eventId(event: number): string {
    return `evt-${event}`;
  }

  #orderId(event: number): string {
    return `${this.#consumer}.o${event}`;
  }

  #accountId(account: number): string {
    return `${this.#consumer}.a${account}`;
  }

  #event(index: number): EventSpec {
    const event = this.#schedule.events[index];
    if (!event) throw new Error(`schedule ${this.#schedule.seed} has no event ${index}`);
    return event;
  }

  #produced(spec: RecordSpec, index: number): ProducedRecord {
    const topic = this.#schedule.topic;
    if (spec.kind === 'order') {
      const eventSpec = this.#event(spec.event);
      const id = Buffer.from(this.#eventId(spec.event));
      return {
        topic,
        partition: spec.partition,
        key: Buffer.from(this.#orderId(spec.event)),
        value: this.#orderValue(spec.event, spec.variant),
        headers: eventSpec.headerId ? [{ key: 'event_id', value: id }] : [],
      };
    }
    const badId = `bad-${index}`;
    const order = {
      type: 'OrderPlaced',
      order_id: `${this.#consumer}.bad${index}`,
      account_id: 'x',
      amount: 5,
    };
    const json = (value: unknown) => Buffer.from(JSON.stringify(value));
    const header = (value: Buffer) => [{ key: 'event_id', value }];
    const malformed: Record<MalformedVariant, Pick<ProducedRecord, 'value' | 'headers'>> = {
      'not-json': {
        value: Buffer.from('{"event_id": "bad" this is not json'),
        headers: header(Buffer.from(badId)),
      },
      'no-event-id': { value: json(order), headers: [] },
      'non-utf8-event-id': { value: json(order), headers: header(Buffer.from([0xc3, 0x28, 0xff])) },
      'numeric-event-id': { value: json({ ...order, event_id: 42 }), headers: [] },
      'schema-invalid': {
        value: json({ ...order, event_id: badId, amount: -5 }),
        headers: header(Buffer.from(badId)),
      },
      tombstone: { value: null, headers: header(Buffer.from(badId)) },
      'other-type': {
        value: json({ event_id: badId, type: 'OrderCancelled' }),
        headers: header(Buffer.from(badId)),
      },
    };
    return { topic, partition: spec.partition, key: null, ...malformed[spec.variant] };
  }

  async #produce(): Promise<void> {
    const produced = this.#schedule.records.map((spec, index) => this.#produced(spec, index));
    const written = await this.#log.produce(produced);
    written.forEach((coordinates, index) => {
      const spec = this.#schedule.records[index] as RecordSpec;
      const key = `${coordinates.topic}-${coordinates.partition}@${coordinates.offset}`;
      this.#records.set(key, { spec, coordinates: key, value: produced[index]?.value ?? null });
    });
  }

  async #seedRows(): Promise<void> {
    for (const row of this.#schedule.seededRows) {
      const nowSeconds = Math.floor(EPOCH_MS / 1000);
      const pk = dedupRowKey(this.#consumer, this.#eventId(row.event));
      const sameHash = payloadHash(this.#orderValue(row.event, 'original'));
      const expired = nowSeconds - row.expiredAgoSeconds;
      const item: Record<string, unknown> = (() => {
        switch (row.kind) {
          case 'expired-completed-same-payload':
            return { pk, status: 'COMPLETED', expires_at: expired, payload_hash: sameHash, source: 'old@1' };
          case 'expired-completed-other-payload':
            return { pk, status: 'COMPLETED', expires_at: expired, payload_hash: 'other', source: 'old@2' };
          case 'expired-in-progress':
            return {
              pk,
              status: 'IN_PROGRESS',
              expires_at: expired,
              payload_hash: sameHash,
              lease_owner: 'ghost',
              lease_until: EPOCH_MS - row.expiredAgoSeconds * 1000,
              source: 'old@3',
            };
          case 'live-lease':
            return {
              pk,
              status: 'IN_PROGRESS',
              expires_at: nowSeconds + DEDUP_TTL_SECONDS,
              payload_hash: sameHash,
              lease_owner: 'ghost',
              lease_until: EPOCH_MS + row.leaseLeftMs,
              source: 'old@4',
            };
        }
      })();
      await this.#documentClient.send(new PutCommand({ TableName: this.#target.inboxTableName, Item: item }));
      this.#count(`seeded:${row.kind}`);
    }
  }

  // ── the consumer under test ─────────────────────────────────────────────────────────────────────

  #settings(): Partial<HandlerSettings> {
    return {
      inboxTableName: this.#target.inboxTableName,
      consumerName: this.#consumer,
      dedupTtlSeconds: DEDUP_TTL_SECONDS,
      leaseMarginMs: LEASE_MARGIN_MS,
      deadlineMarginMs: DEADLINE_MARGIN_MS,
      partitionConcurrency: this.#schedule.partitionConcurrency,
      ...(this.#schedule.ordering.by === 'key'
        ? { ordering: 'key', keyConcurrency: this.#schedule.ordering.keyConcurrency }
        : {}),
    };
  }

  #observe(outcomes: readonly RecordOutcome[]): void {
    const attempt = currentAttempt.getStore();
    if (attempt) this.#outcomes.set(attempt, outcomes);
  }

  /**
   * A fresh execution environment: the sample order consumer's handler chain exactly as its Lambda entry
   * builds it once per container (createHandler); in side-effect mode with the external effect.
   */
  #newContainer(): Invoke {
    const consumer = ordersConsumer(this.#target.appTableName);
    const handler = createInboxConsumer({
      ...consumer,
      ...(this.#mode === 'side-effect' ? { effect: this.#sideEffect(consumer.effect) } : {}),
      settings: this.#settings(),
      dynamoDb: this.#client,
      clock: attemptClock(this.#time),
      logger: new Logger({ serviceName: this.#consumer, logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'MskInboxSoak', serviceName: this.#consumer }),
      observe: { batchProcessed: (_summary, outcomes) => this.#observe(outcomes) },
    });
    if (this.#mutation === 'ack-everything') {
      return async (event, context) => {
        await handler(event, context);
        return { batchItemFailures: [] };
      };
    }
    return (event, context) => handler(event, context);
  }

  /** Side-effect mode: claim → call the external service → complete, fenced by the lease. */
  #sideEffect(transactional: (input: InboxEffectInput<Order>) => EffectPlan) {
    // Same validation and rejections as the sample service; only the effect moves outside DynamoDB.
    const ledger = this.#ledger;
    return async (input: InboxEffectInput<Order>): Promise<EffectPlan> => {
      const plan = transactional(input);
      if (plan.kind !== 'transact') return plan;
      const order = input.event;
      const key = input.dedupKey;
      return {
        kind: 'call',
        run: async () => {
          const attempt = currentAttempt.getStore();
          if (!attempt) throw new Error('effect outside an attempt');
          attempt.assertAlive('effect start');
          const n = attempt.occurrence('effect');
          // Inside the effect from the start: holding the lease, a stalled attempt still counts as running it.
          ledger.begin(key, attempt);
          try {
            if (attempt.stallPlan?.point === 'in-effect' && attempt.stallPlan.nth === n) {
              await attempt.stallHere('in-effect');
              attempt.assertAlive('after the stall');
            }
            const external = attempt.plan.external?.nth === n ? attempt.plan.external.kind : undefined;
            if (external === 'error-before-apply') {
              attempt.fault('external:error-before-apply');
              throw new Error('payment service unavailable (503)');
            }
            const application = ledger.apply(key, order.amount, attempt);
            if (external === 'timeout-after-apply') {
              attempt.fault('external:timeout-after-apply');
              application.timedOutAfterApply = true;
              throw new Error('payment service timed out (it applied the charge)');
            }
            attempt.crashIf('after-effect', n);
          } finally {
            ledger.end(key, attempt);
          }
        },
      };
    };
  }

  // ── the driver ──────────────────────────────────────────────────────────────────────────────────

  /** Delivers until every partition is committed to its end; false when it never gets there. */
  async #drive(): Promise<boolean> {
    const { rounds } = this.#schedule;
    const skew = this.#schedule.beyondBound ? BEYOND_BOUND_SKEW_MS : SKEW_BOUND_MS;
    const settle: RoundPlan = {
      batchSize: 16,
      partitionMask: 15,
      primary: { skewMs: 0, sdkFaults: [], outage: false },
      // Long enough for any lease, however skewed its writer's clock was, to run out.
      advanceMs: FUNCTION_TIMEOUT_MS + LEASE_MARGIN_MS + 2 * skew + 1_000,
    };
    for (let round = 0; ; round++) {
      if (this.#caughtUp()) return true;
      const plan = rounds[round];
      if (!plan) {
        if (this.#settleRounds >= MAX_SETTLE_ROUNDS) return false;
        this.#settleRounds++;
      }
      await this.#round(round, plan ?? settle);
    }
  }

  #caughtUp(): boolean {
    return this.#log
      .topicPartitions([this.#schedule.topic])
      .every((tp) => (this.#log.committedOffset(this.#consumer, tp) ?? 0) >= this.#log.endOffset(tp));
  }

  /** Records from each polled partition's committed offset, at most `batchSize` in all. */
  #poll(plan: RoundPlan, round: number): SourceRecord[] {
    const all = this.#log.topicPartitions([this.#schedule.topic]);
    const pending = all.filter(
      (tp) => (this.#log.committedOffset(this.#consumer, tp) ?? 0) < this.#log.endOffset(tp),
    );
    const masked = pending.filter((tp) => (plan.partitionMask >> tp.partition) & 1);
    const polled = masked.length > 0 ? masked : pending;
    const start = round % polled.length;
    const ordered = [...polled.slice(start), ...polled.slice(0, start)];
    const records: SourceRecord[] = [];
    for (const tp of ordered) {
      const left = plan.batchSize - records.length;
      if (left <= 0) break;
      records.push(...this.#log.read(tp, this.#log.committedOffset(this.#consumer, tp) ?? 0, left));
    }
    return records;
  }

  /**
   * One delivery. The primary runs in the mapping's warm container, which lasts until it crashes; a
   * companion runs in an execution environment of its own.
   */
  async #round(round: number, plan: RoundPlan): Promise<void> {
    this.#container ??= this.#newContainer();
    const invoke = this.#container;
    const records = this.#poll(plan, round);
    const event = buildMskEvent(this.#envelope, records);
    const primary = this.#attempt(`r${round}-primary`, 'primary', plan.primary);
    const companionPlan = plan.companion;
    const companionEvent = companionPlan ? this.#overlapping(event, companionPlan.fromShare) : undefined;
    const companion =
      companionPlan && companionEvent
        ? this.#attempt(`r${round}-companion`, 'companion', companionPlan.attempt, companionPlan.stall)
        : undefined;
    this.#tracePush(`round ${round} @${this.#time.nowMs - EPOCH_MS}ms: ${describeEvent(event)}`);

    let primaryResult: InvocationResult;
    if (companion && companionEvent) {
      this.#count('concurrent-invocation');
      const companionRun = this.#invoke(this.#newContainer(), companion, companionEvent);
      let companionResult: InvocationResult | undefined;
      if (companionPlan?.stall) {
        // Let the companion reach its stall point (or finish), move true time on, run the primary, release it.
        await Promise.race([companion.stalled, companionRun]);
        if (companion.hasStalled) this.#time.advance(companionPlan.stall.advanceMs);
        primaryResult = await this.#invoke(invoke, primary, event);
        companion.release();
        companionResult = await companionRun;
      } else {
        [primaryResult, companionResult] = await Promise.all([
          this.#invoke(invoke, primary, event),
          companionRun,
        ]);
      }
      this.#settleCompanion(companion, companionEvent, companionResult);
    } else {
      primaryResult = await this.#invoke(invoke, primary, event);
    }
    this.#settlePrimary(primary, event, primaryResult);
    if (primary.dead) this.#container = undefined;
    this.#time.advance(plan.advanceMs);
  }

  #attempt(id: string, role: Attempt['role'], plan: AttemptPlan, stall?: StallPlan): Attempt {
    const attempt = new Attempt({
      id,
      role,
      plan,
      ...(stall ? { stall } : {}),
      time: this.#time,
      timeoutMs: FUNCTION_TIMEOUT_MS,
      countFault: (kind) => this.#count(kind),
    });
    this.#attempts.push(attempt);
    if (plan.skewMs !== 0) this.#count('clock-skew');
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

  async #invoke(invoke: Invoke, attempt: Attempt, event: MskEvent): Promise<InvocationResult> {
    this.#invocations++;
    this.#deliveredRecords += Object.values(event.records).reduce((n, list) => n + list.length, 0);
    return currentAttempt.run(attempt, async () => {
      let response: unknown;
      let error: unknown;
      try {
        response = await invoke(event, lambdaContext(attempt));
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
    this.#tracePush(`  primary ${attempt.id}: ${describeResult(result)}`);
    if (result.kind === 'threw') {
      this.#violate('handler-never-throws', `${attempt.id} threw ${describeError(result.error)}`);
      return;
    }
    if (result.kind === 'crashed') return;
    const outcomes = this.#checkInvocation(attempt, event, result.response);
    if (!outcomes) return;
    const verdict = interpretResponse(event, result.response);
    if (verdict.kind === 'invalid') return;
    // Kafka's checkpoint: per partition, commit up to the lowest reported offset and redeliver from it.
    for (const [key, list] of Object.entries(event.records)) {
      const first = list[0];
      const last = list.at(-1);
      if (!first || !last) continue;
      const lowest = verdict.kind === 'partial' ? verdict.lowestFailedOffsets.get(key) : undefined;
      const next = lowest ?? last.offset + 1;
      this.#log.commit(this.#consumer, { topic: first.topic, partition: first.partition }, next);
      for (const record of list) {
        if (record.offset >= next) break;
        const coordinates = `${key}@${record.offset}`;
        const outcome = outcomes.get(coordinates);
        if (outcome) this.#finalOutcomes.set(coordinates, outcome);
      }
    }
  }

  #settleCompanion(attempt: Attempt, event: MskEvent, result: InvocationResult): void {
    this.#tracePush(`  companion ${attempt.id}: ${describeResult(result)}`);
    if (result.kind === 'threw') {
      this.#violate('handler-never-throws', `${attempt.id} threw ${describeError(result.error)}`);
      return;
    }
    // Its response is fenced off (or lost): only its shape is checked.
    if (result.kind === 'returned') this.#checkInvocation(attempt, event, result.response);
  }

  /**
   * Every record has one outcome; the response names exactly the reported records, each of its own event,
   * and per partition they are a suffix (nothing after a reported record is acked).
   */
  #checkInvocation(
    attempt: Attempt,
    event: MskEvent,
    response: unknown,
  ): Map<string, RecordOutcome> | undefined {
    const verdict = interpretResponse(event, response);
    if (verdict.kind === 'invalid') {
      this.#violate('response-names-only-its-records', `${attempt.id}: ${verdict.reason}`);
      return undefined;
    }
    const outcomes = this.#outcomes.get(attempt) ?? [];
    const byCoordinates = new Map(outcomes.map((outcome) => [outcome.coordinates, outcome]));
    const expected = Object.entries(event.records).flatMap(([key, list]) =>
      list.map((r) => `${key}@${r.offset}`),
    );
    if (outcomes.length !== expected.length || expected.some((c) => !byCoordinates.has(c))) {
      this.#violate(
        'one-outcome-per-record',
        `${attempt.id}: ${outcomes.length} outcomes for ${expected.length} records`,
      );
      return undefined;
    }
    const failures =
      (response as { batchItemFailures?: { itemIdentifier: { partition: string; offset: number } }[] })
        ?.batchItemFailures ?? [];
    const named = new Set(failures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`));
    for (const outcome of outcomes) {
      if (isReported(outcome.status) && !named.has(outcome.coordinates)) {
        this.#violate(
          'response-names-the-reported-records',
          `${attempt.id}: ${outcome.coordinates} is ${outcome.status} but not reported`,
        );
      }
    }
    // Kafka commits up to the lowest reported offset: every record from it on must be named (redelivered),
    // including one already finished.
    for (const [key, list] of Object.entries(event.records)) {
      const firstNamed = list.findIndex((r) => named.has(`${key}@${r.offset}`));
      if (firstNamed >= 0 && list.slice(firstNamed).some((r) => !named.has(`${key}@${r.offset}`))) {
        this.#violate(
          'reported-suffix',
          `${attempt.id}: ${key} leaves a record after a reported one unnamed`,
        );
      }
    }
    if (attempt.plan.outage) {
      // Unreachable DynamoDB: nothing is acked that needed a write. A duplicate of a key already completed
      // (the container's cache of completed keys knows it) and a skipped record need none.
      const acked = outcomes.filter(
        (o) =>
          !isReported(o.status) &&
          o.status !== 'skipped' &&
          !(o.status === 'duplicate' && o.dedupKey !== undefined && this.#completedBefore(o.dedupKey)),
      );
      if (acked.length > 0) {
        this.#violate(
          'outage-acks-nothing',
          `${attempt.id}: ${acked.map((o) => `${o.coordinates} ${o.status}`).join(', ')} acked while DynamoDB was unreachable`,
        );
      }
    }
    for (const outcome of outcomes) this.#checkOutcomeHonesty(attempt, outcome);
    return byCoordinates;
  }

  /** Whether some attempt durably completed the key (a commit or a completion DynamoDB applied). */
  #completedBefore(dedupKey: string): boolean {
    const pk = dedupRowKey(this.#consumer, dedupKey);
    return (
      this.#journal.applied(
        (e) =>
          (e.request.operation === 'commit' || e.request.operation === 'complete') && e.request.pk === pk,
      ).length > 0
    );
  }

  /** `in-flight` means another attempt holds the lease; `leaseLost` means another attempt took it over. */
  #checkOutcomeHonesty(attempt: Attempt, outcome: RecordOutcome): void {
    if (outcome.dedupKey === undefined) return;
    const pk = dedupRowKey(this.#consumer, outcome.dedupKey);
    const claims = this.#journal.applied((e) => e.request.operation === 'claim' && e.request.pk === pk);
    const own = claims.filter((e) => e.attempt === attempt);
    if (outcome.status === 'in-flight' && outcome.reason === 'live-lease' && own.length > 0) {
      const later = claims.some((e) => e.attempt !== attempt && e.seq > (own.at(-1)?.seq ?? 0));
      if (!later) {
        this.#violate(
          'in-flight-means-another-attempt',
          `${attempt.id}: ${outcome.coordinates} reported in-flight on the lease it claimed itself (${this.#journal.entries
            .filter((e) => e.request.pk === pk)
            .map(
              (e) => `#${e.seq} ${e.attempt.id} ${e.request.operation} ${e.applied ? 'applied' : 'failed'}`,
            )
            .join('; ')})`,
        );
      }
    }
    if (outcome.leaseLost) {
      const ownSeq = own.at(-1)?.seq ?? -1;
      const takenOver = claims.some((e) => e.attempt !== attempt && e.seq > ownSeq);
      if (!takenOver) {
        this.#violate(
          'lease-lost-means-taken-over',
          `${attempt.id}: ${outcome.coordinates} reported a lost lease nobody took over (${this.#journal.entries
            .filter((e) => e.request.pk === pk)
            .map(
              (e) => `#${e.seq} ${e.attempt.id} ${e.request.operation} ${e.applied ? 'applied' : 'failed'}`,
            )
            .join('; ')})`,
        );
      }
    }
  }

  // ── the final state ─────────────────────────────────────────────────────────────────────────────

  async #checkFinalState(): Promise<void> {
    // Every record ends processed, duplicate, skipped or quarantined, as its content says.
    const quarantined: string[] = [];
    for (const [coordinates, record] of this.#records) {
      const outcome = this.#finalOutcomes.get(coordinates);
      if (!outcome) {
        this.#violate('every-record-ends-final', `${coordinates} was committed without an acked outcome`);
        continue;
      }
      const problem = this.#unexpectedOutcome(record.spec, outcome);
      if (problem) this.#violate('outcome-matches-content', `${coordinates}: ${problem}`);
      if (outcome.status === 'quarantined') quarantined.push(coordinates);
    }
    const inboxKeys = this.#schedule.events.map((_, i) => dedupRowKey(this.#consumer, this.#eventId(i)));
    const quarantineKeys = quarantined.map((c) => quarantineRowKey(this.#consumer, c));
    const inbox = await this.#getMany(this.#target.inboxTableName, [...inboxKeys, ...quarantineKeys]);
    for (const coordinates of quarantined) {
      const row = inbox.get(quarantineRowKey(this.#consumer, coordinates));
      if (row?.status !== 'QUARANTINED') {
        this.#violate('quarantine-row-kept', `${coordinates} acked as quarantined without a QUARANTINED row`);
      }
    }
    if (this.#mode === 'transactional') await this.#checkExactlyOnce(inbox);
    else this.#checkSideEffects(inbox);
  }

  #unexpectedOutcome(spec: RecordSpec, outcome: RecordOutcome): string | undefined {
    const got = `${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`;
    if (spec.kind === 'order') {
      if (outcome.status === 'processed' || outcome.status === 'duplicate') return undefined;
      const conflicting = this.#event(spec.event).conflictAmount !== undefined;
      if (conflicting && outcome.status === 'quarantined' && outcome.reason === 'payload-conflict')
        return undefined;
      return `a valid order ended ${got}`;
    }
    const expected: Record<MalformedVariant, [OutcomeStatus, string]> = {
      'not-json': ['quarantined', 'invalid-event'],
      'no-event-id': ['quarantined', 'missing-event-id'],
      'non-utf8-event-id': ['quarantined', 'invalid-event-id'],
      'numeric-event-id': ['quarantined', 'invalid-event-id'],
      'schema-invalid': ['quarantined', 'invalid-event'],
      tombstone: ['quarantined', 'invalid-event'],
      'other-type': ['skipped', 'other-event-type'],
    };
    const [status, reason] = expected[spec.variant];
    return outcome.status === status && outcome.reason === reason
      ? undefined
      : `${spec.variant} ended ${got}, expected ${status} (${reason})`;
  }

  /** Transactional mode: each unique valid event's effect is applied exactly once, with its inbox row. */
  async #checkExactlyOnce(inbox: Map<string, Record<string, unknown>>): Promise<void> {
    const { events } = this.#schedule;
    const orderKeys = events.map((_, i) => `order#${this.#orderId(i)}`);
    const accounts = [...new Set(events.map((e) => e.account))];
    const app = await this.#getMany(this.#target.appTableName, [
      ...orderKeys,
      ...accounts.map((a) => `account#${this.#accountId(a)}`),
    ]);
    const balances = new Map<number, number>();
    events.forEach((event, i) => {
      const total = (app.get(`order#${this.#orderId(i)}`)?.total as number | undefined) ?? 0;
      const row = inbox.get(dedupRowKey(this.#consumer, this.#eventId(i)));
      const variants: ['original' | 'conflict', number][] = [['original', event.amount]];
      if (event.conflictAmount !== undefined) variants.push(['conflict', event.conflictAmount]);
      const applied = variants.find(([, amount]) => amount === total);
      if (total === 0) {
        this.#violate('nothing-lost', `${this.#eventId(i)} was never applied`);
      } else if (!applied) {
        this.#violate(
          'exactly-once',
          `${this.#eventId(i)}: order total ${total}, amounts ${variants.map(([, a]) => a)}`,
        );
      } else if (
        row?.status !== 'COMPLETED' ||
        row.payload_hash !== payloadHash(this.#orderValue(i, applied[0]))
      ) {
        this.#violate(
          'effect-with-its-inbox-row',
          `${this.#eventId(i)}: applied as ${applied[0]} but its inbox row is ${row?.status ?? 'absent'}`,
        );
      }
      balances.set(event.account, (balances.get(event.account) ?? 0) - total);
    });
    for (const [account, expected] of balances) {
      const balance = (app.get(`account#${this.#accountId(account)}`)?.balance as number | undefined) ?? 0;
      if (balance !== expected) {
        this.#violate('exactly-once', `account ${account}: balance ${balance}, expected ${expected}`);
      }
    }
  }

  /**
   * Side-effect mode: never lost; never run by two live attempts at once within the skew bound; and an
   * event runs again only after an application whose completion was never recorded (the window).
   */
  #checkSideEffects(inbox: Map<string, Record<string, unknown>>): void {
    for (const run of this.#ledger.concurrentRuns) {
      if (!this.#schedule.beyondBound) {
        this.#violate(
          'never-concurrent',
          `${run.key}: ${run.attempts.join(' and ')} inside the effect at once (clocks ${run.skewGapMs} ms apart)`,
        );
      }
    }
    this.#schedule.events.forEach((event, i) => {
      const key = this.#eventId(i);
      const applications = this.#ledger.applicationsOf(key);
      const row = inbox.get(dedupRowKey(this.#consumer, key));
      if (applications.length === 0) {
        this.#violate('nothing-lost', `${key} was never applied`);
        return;
      }
      if (row?.status !== 'COMPLETED') {
        this.#violate('nothing-lost', `${key} applied but its inbox row is ${row?.status ?? 'absent'}`);
      }
      const last = applications.at(-1);
      const amounts = [event.amount, event.conflictAmount].filter((a) => a !== undefined);
      if (last && !amounts.includes(last.amount)) {
        this.#violate('effect-with-its-inbox-row', `${key}: applied amount ${last.amount}`);
      } else if (last && row) {
        const variant = last.amount === event.amount ? 'original' : 'conflict';
        if (row.payload_hash !== payloadHash(this.#orderValue(i, variant))) {
          this.#violate('effect-with-its-inbox-row', `${key}: the row's payload is not the last applied one`);
        }
      }
      // Beyond the skew bound a takeover while the holder still runs is possible: counted, not asserted.
      if (this.#schedule.beyondBound) return;
      for (const application of applications.slice(0, -1)) {
        const cause = this.#windowCause(application.attempt, key, application.timedOutAfterApply);
        if (cause) continue;
        this.#violate(
          'at-most-once-outside-the-window',
          `${key}: applied again after ${application.attempt.id} applied and recorded its completion`,
        );
      }
    });
  }

  /** Why an application was not closed by a completion, or undefined when it was. */
  #windowCause(attempt: Attempt, key: string, timedOutAfterApply: boolean): WindowCause | undefined {
    const pk = dedupRowKey(this.#consumer, key);
    const completed = this.#journal.applied(
      (e) => e.attempt === attempt && e.request.operation === 'complete' && e.request.pk === pk,
    );
    if (completed.length > 0) {
      // A completion fenced on a lease taken over does nothing; the journal only records applied writes.
      return undefined;
    }
    if (timedOutAfterApply) return 'external-timeout-after-apply';
    const lost = this.#outcomes.get(attempt)?.some((o) => o.dedupKey === key && o.leaseLost);
    if (lost) return 'lease-lost';
    if (attempt.deathPoint === 'after-effect') return 'crash-after-effect';
    if (attempt.deathPoint === 'after-write') return 'crash-at-random-write';
    if (attempt.deathPoint?.startsWith('timed out')) return 'timed-out';
    if (attempt.dead) return 'crash-elsewhere';
    return 'completion-write-failed';
  }

  /** Walks each key's applied writes: a claim or commit over a row another holder still had IN_PROGRESS. */
  #leaseTakeovers(): number {
    const holders = new Map<string, Attempt | 'seeded'>();
    for (const row of this.#schedule.seededRows) {
      if (row.kind === 'live-lease' || row.kind === 'expired-in-progress') {
        holders.set(dedupRowKey(this.#consumer, this.#eventId(row.event)), 'seeded');
      }
    }
    let takeovers = 0;
    for (const { attempt, request } of this.#journal.applied(() => true)) {
      if (request.pk === undefined) continue;
      const holder = holders.get(request.pk);
      if (request.operation === 'claim' || request.operation === 'commit') {
        if (holder !== undefined && holder !== attempt) takeovers++;
        if (request.operation === 'claim') holders.set(request.pk, attempt);
        else holders.delete(request.pk);
      } else if (
        (request.operation === 'complete' || request.operation === 'release') &&
        holder === attempt
      ) {
        holders.delete(request.pk);
      }
    }
    return takeovers;
  }

  async #getMany(tableName: string, pks: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    const unique = [...new Set(pks)];
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((pk) => ({ pk }));
      while (keys && keys.length > 0) {
        const page = await this.#documentClient.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of page.Responses?.[tableName] ?? []) found.set(item.pk as string, item);
        keys = page.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return found;
  }

  // ── bookkeeping ─────────────────────────────────────────────────────────────────────────────────

  #count(kind: string): void {
    this.#faults[kind] = (this.#faults[kind] ?? 0) + 1;
  }

  #violate(invariant: string, detail: string): void {
    this.#violations.push({ seed: this.#schedule.seed, invariant, detail });
    this.#tracePush(`  VIOLATION ${invariant}: ${detail}`);
  }

  #tracePush(line: string): void {
    if (this.#tracing) this.#trace.push(line);
  }

  #result(): ScheduleResult {
    const { schedule } = { schedule: this.#schedule };
    const finalOutcomes: Partial<Record<OutcomeStatus, number>> = {};
    for (const outcome of this.#finalOutcomes.values()) {
      finalOutcomes[outcome.status] = (finalOutcomes[outcome.status] ?? 0) + 1;
    }
    const windowHits: Partial<Record<WindowCause, number>> = {};
    let extraApplications = 0;
    if (schedule.mode === 'side-effect') {
      schedule.events.forEach((_, i) => {
        const key = this.#eventId(i);
        const applications = this.#ledger.applicationsOf(key);
        extraApplications += Math.max(0, applications.length - 1);
        for (const application of applications.slice(0, -1)) {
          const cause = this.#windowCause(application.attempt, key, application.timedOutAfterApply);
          if (cause) windowHits[cause] = (windowHits[cause] ?? 0) + 1;
        }
      });
    }
    const orders = schedule.records.filter((r) => r.kind === 'order');
    return {
      seed: schedule.seed,
      mode: schedule.mode,
      beyondBound: schedule.beyondBound,
      violations: this.#violations,
      faults: this.#faults,
      figures: {
        events: schedule.events.length,
        records: schedule.records.length,
        producerDuplicates: orders.length - schedule.events.length,
        payloadConflicts: orders.filter((r) => r.variant === 'conflict').length,
        malformedRecords: schedule.records.length - orders.length,
        seededRows: schedule.seededRows.length,
        invocations: this.#invocations,
        deliveredRecords: this.#deliveredRecords,
        settleRounds: this.#settleRounds,
        finalOutcomes,
        effectApplications: this.#ledger.applications.length,
        extraApplications,
        windowHits,
        concurrentRuns: this.#ledger.concurrentRuns.length,
        leaseTakeovers: this.#leaseTakeovers(),
      },
      trace: this.#trace,
    };
  }
}

/** SHA-256 of the value bytes, as the inbox row's `payload_hash` (docs/design.md#the-inbox-item). */
function payloadHash(value: Buffer | null): string {
  return value === null ? 'null' : createHash('sha256').update(value).digest('base64');
}

/** The part of Lambda's context the handler chain reads; remaining time runs on true (virtual) time. */
function lambdaContext(attempt: Attempt): Context {
  return {
    functionName: 'order-consumer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:order-consumer',
    memoryLimitInMB: '1024',
    awsRequestId: attempt.id,
    logGroupName: '/aws/lambda/order-consumer',
    logStreamName: `soak/${attempt.id}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => attempt.remainingMs(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
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
