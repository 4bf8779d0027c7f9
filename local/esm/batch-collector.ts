/**
 * How the emulated mapping assembles one batch: it polls its partitions until the batch is full
 * (BatchSize), would pass Lambda's 6 MB invocation payload, or the batching window ends.
 * https://docs.aws.amazon.com/lambda/latest/dg/msk-esm-parameters.html (BatchSize, MaximumBatchingWindowInSeconds)
 */

import { setTimeout as sleep } from 'node:timers/promises';
import {
  envelopeBytes,
  MAX_INVOCATION_PAYLOAD_BYTES,
  type MskEventEnvelope,
  mskEventRecordBytes,
  partitionEntryBytes,
} from './msk-event.js';
import {
  type RecordSource,
  type SourceRecord,
  type TopicPartition,
  topicPartitionKey,
} from './record-source.js';

export interface Batch {
  readonly records: SourceRecord[];
  /** Per partition key, that partition's records in offset order. */
  readonly partitions: Map<
    string,
    { readonly topicPartition: TopicPartition; readonly records: SourceRecord[] }
  >;
}

export interface CollectOptions {
  readonly maxRecords: number;
  readonly batchingWindowMs: number;
  readonly envelope: MskEventEnvelope;
  /** False once the mapping stops: the window is cut short. */
  readonly running: () => boolean;
  /** A record too large to invoke even alone: handed back, it never enters a batch. */
  readonly discardOversized: (record: SourceRecord) => Promise<void>;
}

/**
 * Polls until the batch is full (BatchSize), would pass 6 MB, or the batching window ends.
 * https://docs.aws.amazon.com/lambda/latest/dg/msk-esm-parameters.html (BatchSize, MaximumBatchingWindowInSeconds)
 */
export async function collectBatch(
  source: RecordSource,
  partitions: readonly TopicPartition[],
  options: CollectOptions,
): Promise<Batch | undefined> {
  const { maxRecords, envelope } = options;
  const records: SourceRecord[] = [];
  const keys = new Set<string>();
  let bytes = envelopeBytes(envelope);
  const windowEnds = Date.now() + options.batchingWindowMs;
  for (;;) {
    let full = false;
    for (const tp of partitions) {
      if (full || records.length >= maxRecords) break;
      const polled = await source.poll(tp, { maxRecords: maxRecords - records.length });
      for (const record of polled) {
        const key = topicPartitionKey(record);
        const size = mskEventRecordBytes(record) + (keys.has(key) ? 0 : partitionEntryBytes(key));
        if (bytes + size > MAX_INVOCATION_PAYLOAD_BYTES) {
          if (records.length === 0) {
            // Too large to invoke even alone.
            await options.discardOversized(record);
            continue;
          }
          // Leave it (and what follows) for the next batch.
          await source.seek(tp, record.offset);
          full = true;
          break;
        }
        records.push(record);
        keys.add(key);
        bytes += size;
      }
    }
    if (full || records.length >= maxRecords || Date.now() >= windowEnds || !options.running()) break;
    await sleep(Math.min(20, Math.max(1, windowEnds - Date.now())));
  }
  return records.length === 0 ? undefined : toBatch(records);
}

/** Groups records by partition, each in offset order. */
export function toBatch(records: readonly SourceRecord[]): Batch {
  const partitions: Batch['partitions'] = new Map();
  for (const record of records) {
    const key = topicPartitionKey(record);
    let entry = partitions.get(key);
    if (!entry) {
      entry = { topicPartition: { topic: record.topic, partition: record.partition }, records: [] };
      partitions.set(key, entry);
    }
    entry.records.push(record);
  }
  for (const entry of partitions.values()) entry.records.sort((a, b) => a.offset - b.offset);
  return { records: [...partitions.values()].flatMap((entry) => entry.records), partitions };
}

export function firstOf(records: readonly SourceRecord[]): SourceRecord {
  const first = records[0];
  if (!first) throw new Error('a partition entry without records');
  return first;
}

export function lastOf(records: readonly SourceRecord[]): SourceRecord {
  const last = records.at(-1);
  if (!last) throw new Error('a partition entry without records');
  return last;
}
