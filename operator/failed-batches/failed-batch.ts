/**
 * One failed batch as the on-failure S3 destination stores it: the invocation record's metadata
 * (`requestContext`, `timestamp`, `KafkaBatchInfo`) and `payload`, the whole event as a JSON string.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html (S3 destination example)
 * An object that does not read as one is refused with the reason, never guessed at.
 */
import type { KafkaEvent, KafkaEventRecord } from '../../lambdas/core/kafka-event.js';
import type { BatchObject } from './batch-source.js';

export interface FailedPartition {
  /** `<topic>-<partition>`, the event's records map key. */
  readonly key: string;
  /** The event's records of this partition, in offset order. */
  readonly records: readonly KafkaEventRecord[];
  readonly firstOffset: number;
  readonly lastOffset: number;
}

export interface FailedBatch {
  readonly object: BatchObject;
  /** The key's last segment: unique (it ends with a random UUID) and the same in a bucket and a folder. */
  readonly name: string;
  /** When the mapping gave up (the record's `timestamp`), epoch ms. */
  readonly timestampMs: number;
  /** RetryAttemptsExhausted, MaximumPayloadSizeExceeded, ... */
  readonly condition: string;
  readonly approximateInvokeCount: number;
  /** `Unhandled` when the last attempt was a function error rather than reported records. */
  readonly functionError: string | undefined;
  readonly payloadBytes: number;
  readonly recordCount: number;
  /** The event's envelope: a replayed record goes out in it, as it came. */
  readonly envelope: Omit<KafkaEvent, 'records'>;
  readonly partitions: readonly FailedPartition[];
}

export type ParsedBatch =
  | { readonly ok: true; readonly batch: FailedBatch }
  | { readonly ok: false; readonly why: string };

export function nameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/** The object's text as a failed batch, or why it is not an on-failure record. */
export function parseFailedBatch(object: BatchObject, text: string): ParsedBatch {
  let record: Record<string, unknown>;
  try {
    record = asObject(JSON.parse(text)) ?? {};
  } catch {
    return { ok: false, why: 'not JSON' };
  }
  const context = asObject(record.requestContext);
  const info = asObject(record.KafkaBatchInfo);
  if (context === undefined || info === undefined || typeof record.timestamp !== 'string') {
    return { ok: false, why: 'no requestContext, KafkaBatchInfo or timestamp' };
  }
  if (typeof record.payload !== 'string') return { ok: false, why: 'no payload (the event)' };
  let event: Record<string, unknown> | undefined;
  try {
    event = asObject(JSON.parse(record.payload));
  } catch {
    event = undefined;
  }
  const records = asObject(event?.records);
  if (event === undefined || records === undefined)
    return { ok: false, why: 'its payload is not a Kafka event' };
  const partitions: FailedPartition[] = [];
  for (const [key, list] of Object.entries(records)) {
    if (!Array.isArray(list) || !list.every(isKafkaRecord)) {
      return { ok: false, why: `its payload's records of ${key} are not Kafka records` };
    }
    const sorted = [...(list as KafkaEventRecord[])].sort((a, b) => a.offset - b.offset);
    const first = sorted[0];
    const last = sorted.at(-1);
    if (first === undefined || last === undefined) continue;
    partitions.push({ key, records: sorted, firstOffset: first.offset, lastOffset: last.offset });
  }
  const timestampMs = Date.parse(record.timestamp);
  const { records: _records, ...envelope } = event;
  return {
    ok: true,
    batch: {
      object,
      name: nameOf(object.key),
      timestampMs: Number.isNaN(timestampMs) ? object.lastModifiedMs : timestampMs,
      condition: String(context.condition ?? '?'),
      approximateInvokeCount: Number(context.approximateInvokeCount ?? 0),
      functionError: stringOrUndefined(asObject(record.responseContext)?.functionError),
      payloadBytes:
        typeof info.payloadSize === 'number' ? info.payloadSize : Buffer.byteLength(record.payload),
      recordCount: partitions.reduce((sum, partition) => sum + partition.records.length, 0),
      envelope: envelope as Omit<KafkaEvent, 'records'>,
      partitions: partitions.sort((a, b) => a.key.localeCompare(b.key)),
    },
  };
}

function isKafkaRecord(value: unknown): boolean {
  const record = asObject(value);
  return (
    record !== undefined &&
    typeof record.topic === 'string' &&
    Number.isSafeInteger(record.partition) &&
    Number.isSafeInteger(record.offset)
  );
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
