/**
 * A failed batch replayed record by record (docs/operate.md#failed-batches): each record goes out as a
 * one-record event in the batch's own envelope, under its own coordinates, so the inbox dedups it as it
 * would a redelivery, and its outcome is told from the inbox as for a quarantined record
 * (replay-record.ts, sendAndJudge). Partitions one after another, each in offset order; a partition stops
 * at its first record that fails, so its order is kept: the records after it are not sent, in this batch
 * and in the later batches of the same command (`stopped`, kept by the caller across batches). A record
 * older than the dedup window is not sent (consumer-settings.ts, pastDedupWindow) and stops its partition.
 */

import { INBOX_STATUS, OPERATOR_ATTRIBUTES as O, OPERATOR_STATUS } from '../../lambdas/core/inbox-rows.js';
import type { KafkaEventRecord } from '../../lambdas/core/kafka-event.js';
import { quarantineKeyOf } from '../../lambdas/core/quarantine-row.js';
import { type ConsumerSettings, pastDedupWindow, pastDedupWindowDetail } from '../consumer-settings.js';
import type { Invoke } from '../local-handler.js';
import { getRow, type OperatorInbox } from '../operator-inbox.js';
import { dedupKeyOf, oneRecordEvent } from '../quarantined-record.js';
import { dryRunDetail, readDedupState, sendAndJudge } from '../replay-record.js';
import type { FailedBatch } from './failed-batch.js';
import type { BatchRecordOutcome, BatchRecordResult } from './replay-log.js';

export interface BatchReplayOptions {
  readonly invoke: Invoke;
  readonly settings: ConsumerSettings;
  /** Read the inbox and say what would happen; send nothing, write nothing. */
  readonly dryRun: boolean;
  /** Send records older than the dedup window too. */
  readonly pastDedupWindow: boolean;
  readonly nowMs: () => number;
  /**
   * Partition (`<topic>-<partition>`) → the offset of its record that did not go through, for every batch
   * of the command: a later batch's records of that partition are not sent either. Updated here.
   */
  readonly stopped: Map<string, number>;
  /** After each record, for progress. */
  readonly onRecord?: (done: number, total: number) => void;
}

/** Outcomes that stop the record's partition: what comes after it is not sent. */
const STOPS_PARTITION: readonly BatchRecordOutcome[] = ['failed', 'not-replayable', 'past-dedup-window'];

export async function replayBatch(
  inbox: OperatorInbox,
  batch: FailedBatch,
  options: BatchReplayOptions,
): Promise<BatchRecordResult[]> {
  const results: BatchRecordResult[] = [];
  for (const partition of batch.partitions) {
    for (const record of partition.records) {
      const stoppedAt = options.stopped.get(partition.key);
      if (stoppedAt !== undefined) {
        results.push({
          partition: partition.key,
          offset: record.offset,
          outcome: 'not-sent',
          detail: `${partition.key}@${stoppedAt} before it did not go through (the partition's order is kept)`,
        });
      } else {
        const result = await replayOne(inbox, batch, partition.key, record, options);
        results.push(result);
        if (STOPS_PARTITION.includes(result.outcome)) options.stopped.set(partition.key, record.offset);
      }
      options.onRecord?.(results.length, batch.recordCount);
    }
  }
  return results;
}

async function replayOne(
  inbox: OperatorInbox,
  batch: FailedBatch,
  partitionKey: string,
  record: KafkaEventRecord,
  options: BatchReplayOptions,
): Promise<BatchRecordResult> {
  const at = { partition: partitionKey, offset: record.offset };
  const rebuilt = oneRecordEvent(batch.envelope, partitionKey, record);
  if (!rebuilt.ok) return { ...at, outcome: 'not-replayable', detail: `cannot be sent: ${rebuilt.why}` };
  const coordinates = quarantineKeyOf(rebuilt.record);
  const dedupKey = dedupKeyOf(rebuilt.record, options.settings.policy);
  const state = await readDedupState(inbox, [dedupKey], options.nowMs());
  const keyed = { ...at, ...(state.dedupKey === undefined ? {} : { dedupKey: state.dedupKey }) };
  // A record in the quarantine already is the quarantine's to replay: sent here, the engine would find
  // its row taken and leave no trace of the outcome (it writes quarantine rows only where none is).
  const held = await quarantineHold(inbox, coordinates);
  if (held !== undefined) return { ...keyed, ...held };
  // The batch holds the records applied before it failed too: past the window their dedup rows may be
  // gone, and sending them would apply them twice (docs/operate.md#failed-batches).
  if (!options.pastDedupWindow && pastDedupWindow(record.timestamp, options.settings, options.nowMs())) {
    return {
      ...keyed,
      outcome: 'past-dedup-window',
      detail: pastDedupWindowDetail(record.timestamp, options.settings),
    };
  }
  if (options.dryRun) return { ...keyed, outcome: 'would-replay', detail: dryRunDetail(state) };
  const judged = await sendAndJudge(
    inbox,
    { coordinates, event: rebuilt.event },
    state,
    options.invoke,
    options.nowMs,
  );
  return { ...keyed, outcome: judged.outcome, detail: judged.detail };
}

/** The outcome of a record the quarantine holds (or an operator discarded), which is then not sent. */
async function quarantineHold(
  inbox: OperatorInbox,
  coordinates: string,
): Promise<{ outcome: BatchRecordOutcome; detail: string } | undefined> {
  // The row a replay set aside first, as `quarantine replay` reads it (getRow).
  const row = await getRow(inbox, coordinates);
  if (row === undefined) return undefined;
  if (row.parked || row.status === INBOX_STATUS.quarantined) {
    return {
      outcome: 'quarantined',
      detail: `in the quarantine already (${row.reason}): not sent; \`msk-inbox quarantine replay ${coordinates}\` once the cause is fixed`,
    };
  }
  if (row.status === OPERATOR_STATUS.discarded) {
    return {
      outcome: 'skipped',
      detail: `discarded by ${String(row.item[O.discardedBy] ?? '?')} from the quarantine: not sent`,
    };
  }
  // Resolved by a quarantine replay: applied, a duplicate or skipped then, and the dedup row says which.
  return undefined;
}
