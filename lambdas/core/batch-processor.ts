import { type BatchProcessorOptions, type BatchState, deadlineNear } from './batch-context.js';
import type { DecodedPartition, DecodedRecord } from './decode-event.js';
import { runLaneRecords } from './group-commit.js';
import { type Lanes, oneLane, runInLanes } from './lane-scheduler.js';
import { mapConcurrently } from './map-concurrently.js';
import { orderingKeyOf, type PartitionOrdering } from './ordering.js';
import type { RecordOutcome } from './outcome.js';
import { outcome } from './record-outcome.js';
import { RefusalStreak } from './refusal-streak.js';

export type { BatchProcessorOptions, BatchState } from './batch-context.js';

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
      deadlineNear: () => deadlineNear(options),
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
