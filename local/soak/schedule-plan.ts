/**
 * What a fault schedule is made of (schedule.ts draws them): the workload's events and records, the rows
 * seeded before it, and per delivery round the faults each invocation meets.
 */
import type { Mode } from './mode.js';
import type { StoreFaultPlan, TransactionStage } from './store-faults.js';

export type CrashPoint =
  | 'before-claim'
  | 'after-claim'
  | 'after-effect'
  | 'after-completion'
  | 'inside-transaction'
  | 'after-write'
  | 'before-response';

/** Side-effect mode: what the external service does to the nth call. */
export type ExternalFaultKind = 'error-before-apply' | 'timeout-after-apply';

export type MalformedVariant =
  | 'not-json'
  | 'no-event-id'
  | 'non-utf8-event-id'
  | 'numeric-event-id'
  | 'schema-invalid'
  | 'tombstone'
  | 'other-type';

/**
 * Inbox rows present before the schedule starts. Expired rows (TTL deletion is lazy) must count as absent;
 * a live lease blocks its key until it runs out.
 */
export type SeededRowKind =
  | 'expired-completed-same-payload'
  | 'expired-completed-other-payload'
  | 'expired-in-progress'
  | 'live-lease';

export interface EventSpec {
  readonly account: number;
  readonly amount: number;
  /** Whether producers set the event_id header (otherwise only the JSON field carries it). */
  readonly headerId: boolean;
  /** When set, one copy carries this amount instead: a payload conflict under the same event_id. */
  readonly conflictAmount?: number;
}

export type RecordSpec =
  | {
      readonly kind: 'order';
      readonly event: number;
      readonly partition: number;
      readonly variant: 'original' | 'conflict';
    }
  | { readonly kind: 'malformed'; readonly partition: number; readonly variant: MalformedVariant };

export interface SeededRow {
  readonly event: number;
  readonly kind: SeededRowKind;
  /** How long ago an expired row expired. */
  readonly expiredAgoSeconds: number;
  /** How long a live lease still runs. */
  readonly leaseLeftMs: number;
}

export interface CrashPlan {
  readonly point: CrashPoint;
  /** Which occurrence of the point (0-based) is fatal; one that never comes means no crash. */
  readonly nth: number;
  /** inside-transaction only: whether the store applied the transaction before the process died. */
  readonly applied: boolean;
  /** inside-transaction on Postgres, when not applied: the point the process dies at. */
  readonly stage?: TransactionStage;
}

export interface AttemptPlan {
  /** This attempt's clock minus true time. */
  readonly skewMs: number;
  readonly crash?: CrashPlan;
  readonly storeFaults: readonly StoreFaultPlan[];
  /** The store unreachable for the whole invocation. */
  readonly outage: boolean;
  readonly external?: { readonly kind: ExternalFaultKind; readonly nth: number };
  /**
   * Redis only: the server is killed and started again (its append-only file fsynced before each answer,
   * so every acknowledged write survives) as the attempt's `atCommand`th command goes out; that command and
   * every other in flight on the server meet the crash (redis-fault-injection.ts).
   */
  readonly serverRestart?: { readonly atCommand: number };
}

/**
 * The companion stops at a point and true time moves on by `advanceMs` while the primary runs:
 * - in-effect: side-effect mode, holding its lease, before the nth external call (a slow dependency, a GC pause);
 * - before-write: the nth write is delayed on the wire; it lands after the primary ran, even if the
 *   companion's deadline passed meanwhile (a request from a dead process still arrives).
 */
export interface StallPlan {
  readonly point: 'in-effect' | 'before-write';
  readonly nth: number;
  readonly advanceMs: number;
}

/**
 * A second invocation over an overlapping batch (a poller that lost its partitions in a rebalance and keeps
 * going, or an invocation that timed out and still runs): its response is ignored, its writes are not.
 */
export interface CompanionPlan {
  /** Per partition, the companion gets the primary's records from this share of the batch on. */
  readonly fromShare: number;
  readonly attempt: AttemptPlan;
  readonly stall?: StallPlan;
}

export interface RoundPlan {
  /** Records per invocation (Lambda's BatchSize). */
  readonly batchSize: number;
  /** Bitmask of the partitions this invocation polls (never empty after masking). */
  readonly partitionMask: number;
  readonly primary: AttemptPlan;
  readonly companion?: CompanionPlan;
  /** True time moves on by this much after the round (backoff, polling). */
  readonly advanceMs: number;
}

export interface Schedule {
  readonly seed: number;
  readonly mode: Mode;
  readonly topic: string;
  readonly partitions: number;
  readonly partitionConcurrency: number;
  /** ORDERING: `partition` (the default), or `key` with this KEY_CONCURRENCY (the Kafka key is the order id). */
  readonly ordering: { readonly by: 'partition' } | { readonly by: 'key'; readonly keyConcurrency: number };
  readonly events: readonly EventSpec[];
  /** In produce order. */
  readonly records: readonly RecordSpec[];
  readonly seededRows: readonly SeededRow[];
  /** Fault rounds; afterwards deliveries run without faults until every partition is committed. */
  readonly rounds: readonly RoundPlan[];
  /** Side-effect mode only: skews beyond the bound the design claims (double effects counted, not asserted). */
  readonly beyondBound: boolean;
  /** Redis only: the store's client. */
  readonly redisClient?: RedisClientKind;
}

/**
 * The Redis store's client: `settings`, the connection redisInbox() makes from REDIS_URL (a client that
 * never reconnects by itself, replaced for the next command once it ended); `own`, an ioredis client of
 * the team's own with ioredis's defaults (`redisInbox({ client: new Redis(url) })`), which reconnects and
 * sends again what it had in flight.
 */
export type RedisClientKind = 'settings' | 'own';
