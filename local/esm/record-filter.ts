/**
 * The mapping's filter criteria applied to a polled batch, as Lambda applies them for Kafka: a record that
 * matches no filter never reaches the function, yet its offset is committed with the batch around it
 * ("For Kafka, Lambda commits offsets for matched and unmatched messages after successfully invoking the
 * function": https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html). The rules are
 * the construct's own (lib/kafka-filters.ts), so what synth accepts is what the emulator runs.
 */
import { compileKafkaFilters, type KafkaRecordFilter } from '../../lib/kafka-filters.js';
import { type Batch, toBatch } from './batch-collector.js';
import type { SourceRecord } from './record-source.js';

export interface FilteredBatch {
  /** The records the function gets. */
  readonly delivered: Batch;
  readonly filteredOut: readonly SourceRecord[];
}

/** Compiles the filters once; without any, every record is delivered. */
export function recordFilter(filters: readonly KafkaRecordFilter[]): (batch: Batch) => FilteredBatch {
  if (filters.length === 0) return (batch) => ({ delivered: batch, filteredOut: [] });
  const delivers = compileKafkaFilters(filters);
  return (batch) => {
    const delivered: SourceRecord[] = [];
    const filteredOut: SourceRecord[] = [];
    for (const record of batch.records) (delivers(record.value) ? delivered : filteredOut).push(record);
    return { delivered: filteredOut.length === 0 ? batch : toBatch(delivered), filteredOut };
  };
}
