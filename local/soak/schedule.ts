/**
 * A fault schedule: one small workload (order events with producer duplicates, malformed records, old inbox
 * rows) and, for its first delivery rounds, the faults each invocation meets. Drawn by fast-check from a seed,
 * so `npm run soak -- --seed S` replays exactly the schedule a failing test printed. The store under test
 * (DynamoDB, Postgres or Redis) chooses which faults its client boundary can meet (and Redis, its modes and
 * its client); everything else is drawn alike.
 */
import fc from 'fast-check';
import type { Mode } from './mode.js';
import type {
  AttemptPlan,
  CrashPlan,
  CrashPoint,
  ExternalFaultKind,
  MalformedVariant,
  RecordSpec,
  RedisClientKind,
  RoundPlan,
  Schedule,
  SeededRowKind,
  StallPlan,
} from './schedule-plan.js';
import { type SoakStoreKind, STORE_MODES, storeFaultKinds, TRANSACTION_STAGES } from './store-faults.js';

export type {
  PostgresFaultKind,
  RedisFaultKind,
  SdkFaultKind,
  SoakStoreKind,
  StoreFaultPlan,
  TransactionStage,
} from './store-faults.js';

/** Virtual time of one invocation: what Lambda's timeout is to a real one. */
export const FUNCTION_TIMEOUT_MS = 60_000;
/** LEASE_MARGIN_MS of the consumer under test. */
export const LEASE_MARGIN_MS = 10_000;
export const DEADLINE_MARGIN_MS = 3_000;
/** Longer than any schedule's virtual span, so a redelivery is always inside the dedup window. */
export const DEDUP_TTL_SECONDS = 86_400;
/**
 * The bound the design claims for side-effect mode: any two attempts' clocks differ by less than the lease
 * margin. Each attempt's skew is within ±SKEW_BOUND_MS, so two differ by at most 9 s < 10 s.
 */
export const SKEW_BOUND_MS = 4_500;
/** Skew drawn by the few schedules that deliberately break the bound (measured, not asserted). */
export const BEYOND_BOUND_SKEW_MS = 45_000;
/** Start of virtual time. */
export const EPOCH_MS = Date.UTC(2026, 10, 29, 12, 0, 0);

export const TOPICS = ['orders', 'order-events', 'eu-west-1.orders-v2'] as const;

/**
 * Where an invocation's execution environment dies. Its response is lost, so the whole batch comes again.
 * - before-claim: just before the nth claim (transactional: the commit) leaves the process.
 * - after-claim: the nth claim (commit) was applied by DynamoDB; the answer never came back.
 * - after-effect: side-effect mode, the nth external effect was applied; completion never written.
 * - after-completion: side-effect mode, the nth completion was applied; the answer never came back.
 * - inside-transaction: transactional mode, during the nth transaction (a TransactWriteItems, a Postgres
 *   BEGIN ... COMMIT); `applied` says whether it landed (Postgres: COMMIT succeeded; if not, `stage` says
 *   where in the transaction the process died, and the dropped connection rolls it back).
 * - after-write: the nth write of any kind was applied (the emulator's crash model).
 * - before-response: every record done, the response is lost.
 */
export type {
  AttemptPlan,
  CompanionPlan,
  CrashPlan,
  CrashPoint,
  EventSpec,
  ExternalFaultKind,
  MalformedVariant,
  RecordSpec,
  RedisClientKind,
  RoundPlan,
  Schedule,
  SeededRow,
  SeededRowKind,
  StallPlan,
} from './schedule-plan.js';

const MALFORMED: readonly MalformedVariant[] = [
  'not-json',
  'no-event-id',
  'non-utf8-event-id',
  'numeric-event-id',
  'schema-invalid',
  'tombstone',
  'other-type',
];

const TRANSACTIONAL_CRASHES: readonly CrashPoint[] = [
  'before-claim',
  'after-claim',
  'inside-transaction',
  'after-write',
  'before-response',
];
const SIDE_EFFECT_CRASHES: readonly CrashPoint[] = [
  'before-claim',
  'after-claim',
  'after-effect',
  'after-completion',
  'after-write',
  'before-response',
];

/** Which occurrence of a point a fault hits: mostly the first ones, as few records per batch are new. */
const occurrence = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.constant(1) },
  { weight: 2, arbitrary: fc.integer({ min: 2, max: 6 }) },
);

function crashPlan(mode: Mode, store: SoakStoreKind): fc.Arbitrary<CrashPlan> {
  const crashes = mode === 'transactional' ? TRANSACTIONAL_CRASHES : SIDE_EFFECT_CRASHES;
  const common = { point: fc.constantFrom(...crashes), nth: occurrence, applied: fc.boolean() };
  return store === 'postgres'
    ? fc.record({ ...common, stage: fc.constantFrom(...TRANSACTION_STAGES) })
    : fc.record(common);
}

function attemptPlan(mode: Mode, skewMs: number, store: SoakStoreKind): fc.Arbitrary<AttemptPlan> {
  return fc
    .record({
      skewMs: fc.integer({ min: -skewMs, max: skewMs }),
      crash: optional(0.45, crashPlan(mode, store)),
      storeFaults: fc.array(
        fc.record({
          kind: fc.constantFrom(...storeFaultKinds(store, mode)),
          atCall: fc.integer({ min: 0, max: 14 }),
          // Three in a row outlast the SDK's retries (maxAttempts 3): the record is reported.
          // (The pg driver does not retry: there every fault reaches the store.)
          burst: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(3) }),
        }),
        { maxLength: 2 },
      ),
      outage: weighted(0.06),
      external:
        mode === 'side-effect'
          ? optional(
              0.25,
              fc.record({
                kind: fc.constantFrom<ExternalFaultKind>('error-before-apply', 'timeout-after-apply'),
                nth: occurrence,
              }),
            )
          : fc.constant(undefined),
      // Drawn for Redis only, so every other store's seeds keep their schedules.
      ...(store === 'redis' ? { serverRestart: optional(0.05, serverRestartPlan) } : {}),
    })
    .map(stripUndefined);
}

/** Redis: the server crashes and restarts as the attempt's nth command goes out (redis-fault-injection.ts). */
const serverRestartPlan = fc.record({ atCommand: fc.integer({ min: 0, max: 10 }) });

function roundPlan(mode: Mode, skewMs: number, store: SoakStoreKind): fc.Arbitrary<RoundPlan> {
  const stallPoints: StallPlan['point'][] =
    mode === 'side-effect' ? ['in-effect', 'before-write'] : ['before-write'];
  // A stall outlasts the companion's deadline, then its lease, about half of the time.
  const lease = FUNCTION_TIMEOUT_MS + LEASE_MARGIN_MS;
  return fc
    .record({
      batchSize: fc.integer({ min: 1, max: 16 }),
      partitionMask: fc.oneof({ weight: 3, arbitrary: fc.constant(15) }, fc.integer({ min: 1, max: 15 })),
      primary: attemptPlan(mode, skewMs, store),
      companion: optional(
        0.35,
        fc
          .record({
            fromShare: fc.constantFrom(0, 0, 0.5),
            attempt: attemptPlan(mode, skewMs, store),
            stall: optional(
              0.6,
              fc.record({
                point: fc.constantFrom(...stallPoints),
                nth: fc.integer({ min: 0, max: 3 }),
                advanceMs: fc.oneof(
                  fc.integer({ min: 0, max: FUNCTION_TIMEOUT_MS }),
                  fc.integer({ min: FUNCTION_TIMEOUT_MS, max: lease + 2 * skewMs }),
                  fc.integer({ min: lease - 2 * skewMs, max: 2 * lease }),
                ),
              }),
            ),
          })
          .map(stripUndefined),
      ),
      advanceMs: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 90_000 })),
    })
    .map(stripUndefined);
}

const eventSpec = fc
  .record({
    account: fc.integer({ min: 0, max: 2 }),
    amount: fc.integer({ min: 1, max: 999 }),
    headerId: weighted(0.85),
    conflictAmount: optional(0.06, fc.integer({ min: 1000, max: 1999 })),
  })
  .map(stripUndefined);

/** Every schedule, in the modes `store` runs (STORE_MODES), with the client faults of `store`. */
export function scheduleArbitrary(
  store: SoakStoreKind = 'dynamodb',
  modes: readonly Mode[] = STORE_MODES[store],
): fc.Arbitrary<Omit<Schedule, 'seed'>> {
  return fc
    .record({
      mode: fc.constantFrom<Mode>(...modes),
      topic: fc.constantFrom(...TOPICS),
      partitions: fc.integer({ min: 1, max: 4 }),
      partitionConcurrency: fc.constantFrom(1, 2, 8),
      ordering: fc.oneof(
        { weight: 3, arbitrary: fc.constant({ by: 'partition' as const }) },
        fc.record({ by: fc.constant('key' as const), keyConcurrency: fc.integer({ min: 1, max: 4 }) }),
      ),
      events: fc.array(eventSpec, { minLength: 3, maxLength: 14 }),
      beyondBound: weighted(0.1),
      // Drawn for Redis only, so every other store's seeds keep their schedules.
      ...(store === 'redis' ? { redisClient: fc.constantFrom<RedisClientKind>('settings', 'own') } : {}),
    })
    .chain((base) => {
      const n = base.events.length;
      const skewMs = base.mode === 'side-effect' && base.beyondBound ? BEYOND_BOUND_SKEW_MS : SKEW_BOUND_MS;
      return fc
        .record({
          // Each event's copies: its first copy, then producer retries (same payload), maybe in another partition.
          copies: fc.tuple(
            ...base.events.map((event) =>
              fc.array(fc.integer({ min: 0, max: base.partitions - 1 }), {
                minLength: event.conflictAmount === undefined ? 1 : 2,
                maxLength: 3,
              }),
            ),
          ),
          malformed: fc.array(
            fc.record({
              partition: fc.integer({ min: 0, max: base.partitions - 1 }),
              variant: fc.constantFrom(...MALFORMED),
            }),
            { maxLength: 2 },
          ),
          order: fc.array(fc.nat(), { minLength: 3 * n + 2, maxLength: 3 * n + 2 }),
          seededRows: fc.uniqueArray(
            fc.record({
              event: fc.integer({ min: 0, max: n - 1 }),
              kind: fc.constantFrom<SeededRowKind>(
                'expired-completed-same-payload',
                'expired-completed-other-payload',
                'expired-in-progress',
                'live-lease',
              ),
              expiredAgoSeconds: fc.integer({ min: 3_600, max: 30 * 86_400 }),
              leaseLeftMs: fc.integer({ min: 1_000, max: 300_000 }),
            }),
            { maxLength: 2, selector: (row) => row.event },
          ),
          rounds: fc.array(roundPlan(base.mode, skewMs, store), { minLength: 1, maxLength: 6 }),
        })
        .map(({ copies, malformed, order, seededRows, rounds }) => {
          const records: RecordSpec[] = [];
          copies.forEach((partitions, event) => {
            partitions.forEach((partition, copy) => {
              const conflict = base.events[event]?.conflictAmount !== undefined && copy === 1;
              records.push({ kind: 'order', event, partition, variant: conflict ? 'conflict' : 'original' });
            });
          });
          for (const { partition, variant } of malformed)
            records.push({ kind: 'malformed', partition, variant });
          const shuffled = records
            .map((record, index) => ({ record, key: order[index] ?? index }))
            .sort((a, b) => a.key - b.key)
            .map(({ record }) => record);
          return { ...base, records: shuffled, seededRows, rounds };
        });
    });
}

/**
 * The schedule of a seed: the same seed (and store, and outbox choice) always gives the same schedule. An
 * outbox schedule is transactional: only a `transact` plan emits (docs/outbox.md#emitting). A Redis
 * schedule is a side-effect one (STORE_MODES).
 */
export function scheduleFromSeed(
  seed: number,
  store: SoakStoreKind = 'dynamodb',
  options: { readonly outbox?: boolean } = {},
): Schedule {
  const modes: readonly Mode[] | undefined = options.outbox ? ['transactional'] : undefined;
  const [drawn] = fc.sample(fc.noBias(scheduleArbitrary(store, modes)), { seed, numRuns: 1 });
  if (!drawn) throw new Error(`no schedule drawn for seed ${seed}`);
  return { seed, ...drawn };
}

/** A schedule seed: fast-check draws these in the property test, the soak counts them up. */
export const scheduleSeed = fc.integer({ min: 1, max: 2_147_483_647 });

function optional<T>(probability: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return weighted(probability).chain((present) => (present ? arbitrary : fc.constant(undefined)));
}

/** True with the given probability (fc.double is not uniform over [0, 1): it favours small values). */
function weighted(probability: number): fc.Arbitrary<boolean> {
  return fc.integer({ min: 0, max: 9_999 }).map((x) => x < probability * 10_000);
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
