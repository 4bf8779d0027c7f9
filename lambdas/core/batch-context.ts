/**
 * What the processor's parts share: the options of a batch run and what one invocation learns as it goes.
 * Types (and the deadline rule) only, so the parts (group-commit.ts, record-preparation.ts, record-settlement.ts) depend on it and
 * not on the processor that calls them.
 */
import type { Clock } from './clock.js';
import type { DecodedRecord } from './decode-event.js';
import type { DedupKeyPolicy } from './dedup-key.js';
import type { Effect } from './effect.js';
import type { InboxStore } from './inbox-store.js';
import type { PartitionOrdering } from './ordering.js';
import type { OutboxTarget } from './outbox-appends.js';
import type { RecordOutcome } from './outcome.js';
import type { RefusalStreak } from './refusal-streak.js';
import type { InvocationTrace } from './telemetry/consumer-tracer.js';

export interface BatchProcessorOptions {
  readonly store: InboxStore;
  readonly effect: Effect;
  /**
   * Says why a record is not for this consumer (e.g. another event type), before any key is needed:
   * such records are acked with no write at all.
   */
  readonly skipRecord?: (record: DecodedRecord) => string | undefined;
  readonly dedupKeyPolicy: DedupKeyPolicy;
  readonly clock: Clock;
  /** Lambda's `context.getRemainingTimeInMillis`. */
  readonly remainingTimeMs: () => number;
  /** No record starts once less than this is left; the rest are reported as deferred. */
  readonly deadlineMarginMs: number;
  /** A side-effect lease lasts the remaining invocation time plus this, so it outlives a timed-out attempt. */
  readonly leaseMarginMs: number;
  /** Partitions processed at once. */
  readonly partitionConcurrency: number;
  /**
   * Which records of a partition run one after another: all of them (`partition`), or those of one
   * ordering key (`key`), different keys concurrently.
   * @default { by: 'partition' }
   */
  readonly ordering?: PartitionOrdering;
  /** DynamoDB's content refusals since the last applied record; the handler keeps one per container. @default a new one */
  readonly refusals?: RefusalStreak;
  /** Transactional records of a lane committed together at most (group-commit.ts). @default 1 (no grouping) */
  readonly transactGroupMaxRecords?: number;
  /**
   * The consumer's name (CONSUMER_NAME): part of every emitted event's id (outbox-event-id.ts).
   * @default '' (tests that emit nothing)
   */
  readonly consumerName?: string;
  /** Where the events an effect emits are appended; without it a plan that emits is reported (docs/outbox.md). */
  readonly outbox?: OutboxTarget;
  /** The invocation's spans (telemetry/consumer-tracer.ts). @default NO_TRACE */
  readonly trace?: InvocationTrace;
}

/** The one deadline rule: nothing (a record, a request of a group) starts within the margin. */
export function deadlineNear(
  options: Pick<BatchProcessorOptions, 'remainingTimeMs' | 'deadlineMarginMs'>,
): boolean {
  return options.remainingTimeMs() < options.deadlineMarginMs;
}

/** What one invocation learns as it goes. */
export interface BatchState {
  /** Copies of one key within the batch are resolved once: later copies wait for the first. */
  readonly firstCopies: Map<string, FirstCopy>;
  readonly refusals: RefusalStreak;
  readonly trace: InvocationTrace;
}

/** The first copy of a dedup key in this batch; later copies wait for its outcome. */
export interface FirstCopy {
  readonly payloadHash: string;
  readonly coordinates: string;
  readonly outcome: Promise<RecordOutcome>;
  /** Its outcome, once it has one. */
  settled: RecordOutcome | undefined;
}
