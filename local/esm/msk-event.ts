/**
 * The Kafka event and batch response exactly as Lambda's event source mapping shapes them. Declared here,
 * independently of the handler's own types, so the emulator states the AWS contract and not what the
 * handler happens to accept.
 */
import { type SourceRecord, topicPartitionKey } from './record-source.js';

/** https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html (example event) */
export interface MskEventRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  /** Base64, or null for a record without key. */
  readonly key: string | null;
  /** Base64, or null for a tombstone. */
  readonly value: string | null;
  /** One-entry objects whose numbers are signed bytes (-128..127). */
  readonly headers: readonly Readonly<Record<string, number[]>>[];
}

export interface MskEvent {
  /** `aws:kafka` for MSK, `SelfManagedKafka` otherwise. https://docs.aws.amazon.com/lambda/latest/dg/with-kafka.html */
  readonly eventSource: 'aws:kafka' | 'SelfManagedKafka';
  /** Only for MSK. */
  readonly eventSourceArn?: string;
  /** One comma-separated string. */
  readonly bootstrapServers: string;
  /** Keyed by `<topic>-<partition>`, each list in offset order. */
  readonly records: Readonly<Record<string, readonly MskEventRecord[]>>;
}

/** The envelope fields of every invocation of one mapping. */
export interface MskEventEnvelope {
  readonly eventSource: MskEvent['eventSource'];
  readonly eventSourceArn?: string;
  readonly bootstrapServers: string;
}

/**
 * Lambda's synchronous invocation payload limit, which caps a Kafka batch whatever its BatchSize.
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const MAX_INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;

export function toMskEventRecord(record: SourceRecord): MskEventRecord {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: record.timestampType,
    key: record.key === null ? null : record.key.toString('base64'),
    value: record.value === null ? null : record.value.toString('base64'),
    // Header bytes travel as Java's signed bytes. https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html
    headers: record.headers.map((header) => ({ [header.key]: toSignedBytes(header.value) })),
  };
}

export function toSignedBytes(bytes: Buffer): number[] {
  return Array.from(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length));
}

/** Builds the event from records grouped by partition; partitions without records are left out. */
export function buildMskEvent(envelope: MskEventEnvelope, records: readonly SourceRecord[]): MskEvent {
  const byPartition: Record<string, MskEventRecord[]> = {};
  for (const record of records) {
    const key = topicPartitionKey(record);
    byPartition[key] ??= [];
    byPartition[key].push(toMskEventRecord(record));
  }
  for (const list of Object.values(byPartition)) list.sort((a, b) => a.offset - b.offset);
  return {
    eventSource: envelope.eventSource,
    ...(envelope.eventSource === 'aws:kafka' && envelope.eventSourceArn !== undefined
      ? { eventSourceArn: envelope.eventSourceArn }
      : {}),
    bootstrapServers: envelope.bootstrapServers,
    records: byPartition,
  };
}

/** JSON bytes one record adds to an event (its entry plus a separator), for the payload cap. */
export function mskEventRecordBytes(record: SourceRecord): number {
  return Buffer.byteLength(JSON.stringify(toMskEventRecord(record))) + 1;
}

/** JSON bytes of an event with no records. */
export function envelopeBytes(envelope: MskEventEnvelope): number {
  return Buffer.byteLength(JSON.stringify(buildMskEvent(envelope, [])));
}

/** JSON bytes one partition's entry in `records` adds besides its records: `"key":[]` and a separator. */
export function partitionEntryBytes(partitionKey: string): number {
  return Buffer.byteLength(JSON.stringify(partitionKey)) + 4;
}
