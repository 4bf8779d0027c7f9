import type { DecodedPartition } from './decode-event.js';
import { type OutcomeStatus, PAYLOAD_CONFLICT, type RecordOutcome } from './outcome.js';

export interface BatchSummary {
  readonly records: number;
  readonly counts: Readonly<Record<OutcomeStatus, number>>;
  readonly leaseLost: number;
  readonly payloadConflicts: number;
  readonly durationMs: number;
  /** From the oldest record's Kafka timestamp to the end of the batch; undefined without timestamps. */
  readonly recordLatencyMs: number | undefined;
}

const NO_OUTCOMES: Record<OutcomeStatus, number> = {
  processed: 0,
  duplicate: 0,
  skipped: 0,
  quarantined: 0,
  'in-flight': 0,
  failed: 0,
  deferred: 0,
  blocked: 0,
};

export function summarizeBatch(
  partitions: readonly DecodedPartition[],
  outcomes: readonly RecordOutcome[],
  startedMs: number,
  endedMs: number,
): BatchSummary {
  const counts = { ...NO_OUTCOMES };
  let leaseLost = 0;
  let payloadConflicts = 0;
  for (const outcome of outcomes) {
    counts[outcome.status] += 1;
    if (outcome.leaseLost) leaseLost += 1;
    if (outcome.reason === PAYLOAD_CONFLICT) payloadConflicts += 1;
  }
  let oldest: number | undefined;
  for (const partition of partitions) {
    for (const record of partition.records) {
      if (record.timestamp !== undefined && (oldest === undefined || record.timestamp < oldest))
        oldest = record.timestamp;
    }
  }
  return {
    records: outcomes.length,
    counts,
    leaseLost,
    payloadConflicts,
    durationMs: endedMs - startedMs,
    recordLatencyMs: oldest === undefined ? undefined : Math.max(0, endedMs - oldest),
  };
}
