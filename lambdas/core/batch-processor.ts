import { type BatchProcessorOptions, type BatchState, deadlineNear } from './batch-context.js';
import { CrossKeyCommitWindow } from './cross-key-commit.js';
import type { DecodedPartition, DecodedRecord } from './decode-event.js';
import { directWrites, type LaneWrites, runLaneRecords } from './group-commit.js';
import { type Lanes, oneLane, runInLanes } from './lane-scheduler.js';
import { mapConcurrently } from './map-concurrently.js';
import { orderingKeyOf, type PartitionOrdering } from './ordering.js';
import type { RecordOutcome } from './outcome.js';
import { outcome } from './record-outcome.js';
import { RefusalStreak } from './refusal-streak.js';
import { type InvocationTrace, NO_TRACE } from './telemetry/consumer-tracer.js';

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
  const trace = options.trace ?? NO_TRACE;
  const state: BatchState = {
    firstCopies: new Map(),
    refusals: options.refusals ?? new RefusalStreak(),
    trace,
  };
  const groupMax = options.transactGroupMaxRecords ?? 1;
  const lanes = lanesOf(options.ordering, groupMax);
  const perPartition = await mapConcurrently(partitions, options.partitionConcurrency, async (partition) => {
    trace.partitionStarted(partition);
    const writes = partitionWrites(options, groupMax, trace);
    try {
      return await runInLanes(partition.records, lanes, {
        run: (records) => runLaneRecords(records, options, state, writes),
        notStarted: (record, status, reason, detail) => {
          const result = outcome(record, status, { reason, detail });
          trace.recordEnded(record, result);
          return result;
        },
        deadlineNear: () => deadlineNear(options),
      });
    } finally {
      trace.partitionEnded(partition);
    }
  });
  return perPartition.flat();
}

/**
 * With per-key ordering and grouping on, a partition's lanes hand their groups to one cross-key window
 * (cross-key-commit.ts); otherwise each lane's group is a request of its own.
 */
function partitionWrites(
  options: BatchProcessorOptions,
  groupMax: number,
  trace: InvocationTrace,
): LaneWrites {
  const ordering = options.ordering;
  if (ordering?.by !== 'key' || groupMax <= 1) return directWrites(options.store);
  return new CrossKeyCommitWindow({
    store: options.store,
    trace,
    maxRecords: groupMax,
    maxInFlight: ordering.keyConcurrency,
    mayStart: () => !deadlineNear(options),
  });
}

function lanesOf(ordering: PartitionOrdering | undefined, take: number): Lanes {
  if (ordering?.by !== 'key') return oneLane(take);
  return {
    laneOf: (record: DecodedRecord) => orderingKeyOf(record, ordering.keySource),
    // Grouped, KEY_CONCURRENCY bounds the partition's transactions in flight (and records that write alone,
    // cross-key-commit.ts), each carrying the ready records of up to TRANSACT_GROUP_MAX_RECORDS keys: so
    // that many keys run at once. Ungrouped, each key in flight is a request in flight.
    concurrency: take > 1 ? ordering.keyConcurrency * take : ordering.keyConcurrency,
    take,
  };
}
