import type { Clock } from './clock.js';
import type { DecodedPartition, DecodedRecord } from './decode-event.js';
import type { DedupKeyPolicy } from './dedup-key.js';
import type { Effect } from './effect.js';
import { runLaneRecords } from './group-commit.js';
import type { InboxStore } from './inbox-store.js';
import { type Lanes, oneLane, runInLanes } from './lane-scheduler.js';
import { mapConcurrently } from './map-concurrently.js';
import { orderingKeyOf, type PartitionOrdering } from './ordering.js';
import type { RecordOutcome } from './outcome.js';
import { outcome } from './record-outcome.js';
import type { FirstCopy } from './record-preparation.js';
import { RefusalStreak } from './refusal-streak.js';

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
}

/** What one invocation learns as it goes. */
export interface BatchState {
  /** Copies of one key within the batch are resolved once: later copies wait for the first. */
  readonly firstCopies: Map<string, FirstCopy>;
  readonly refusals: RefusalStreak;
}

/**
 * Runs one batch: partitions concurrently (bounded), each partition's records in lanes (lane-scheduler.ts),
 * transactional records of a lane committed in groups (group-commit.ts): after a partition's first
 * reported record the records after it are not started and are all reported, so Lambda's checkpoint
 * (commit up to the lowest reported offset) never skips a record.
 */
export async function processBatch(
  partitions: readonly DecodedPartition[],
  options: BatchProcessorOptions,
): Promise<RecordOutcome[]> {
  const state: BatchState = { firstCopies: new Map(), refusals: options.refusals ?? new RefusalStreak() };
  const lanes = lanesOf(options.ordering, options.transactGroupMaxRecords ?? 1);
  const perPartition = await mapConcurrently(partitions, options.partitionConcurrency, (partition) =>
    runInLanes(partition.records, lanes, {
      run: (records) => runLaneRecords(records, options, state),
      notStarted: (record, status, reason, detail) => outcome(record, status, { reason, detail }),
      deadlineNear: () => options.remainingTimeMs() < options.deadlineMarginMs,
    }),
  );
  return perPartition.flat();
}

function lanesOf(ordering: PartitionOrdering | undefined, take: number): Lanes {
  if (ordering?.by !== 'key') return oneLane(take);
  return {
    laneOf: (record: DecodedRecord) => orderingKeyOf(record, ordering.keySource),
    concurrency: ordering.keyConcurrency,
    take,
  };
}
