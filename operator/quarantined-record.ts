/**
 * A quarantine row's record, as an operator reads it and as a replay sends it: the stored wire form
 * (lambdas/core/quarantine-row.ts) turned back into the one-record Kafka event Lambda would deliver, and
 * decoded for a person (key and headers as text, the value as JSON where it is JSON, else base64).
 */
import { type DecodedRecord, decodeEvent, decodeUtf8 } from '../lambdas/core/decode-event.js';
import { type DedupKeyPolicy, deriveDedupKey } from '../lambdas/core/dedup-key.js';
import type { KafkaEvent, KafkaEventRecord } from '../lambdas/core/kafka-event.js';
import type { StoredRecord } from '../lambdas/core/quarantine-row.js';

/** Where a quarantined record's event came from is not kept: the replayed envelope (the handler does not read it). */
const REPLAY_ENVELOPE: Omit<KafkaEvent, 'records'> = {
  eventSource: 'aws:kafka',
  eventSourceArn: 'arn:aws:kafka:us-east-1:000000000000:cluster/msk-inbox-replay/replay',
  bootstrapServers: 'replay.invalid:9098',
};

export type ReplayableEvent =
  | { readonly ok: true; readonly event: KafkaEvent; readonly record: DecodedRecord }
  | { readonly ok: false; readonly why: string };

/**
 * The one-record event that redelivers the row's record under its own coordinates (`id` is
 * `<records map key>@<offset>`), so the inbox sees the very record again: a replay of an applied record
 * is a duplicate, never a second effect. A record stored cut or reshaped cannot be sent as it came.
 */
export function replayEventOf(id: string, stored: StoredRecord): ReplayableEvent {
  const at = id.lastIndexOf('@');
  if (at <= 0 || id.includes('#') || typeof stored.offset !== 'number') {
    return { ok: false, why: 'its coordinates were not usable when it was quarantined' };
  }
  if (stored.cut !== undefined && stored.cut.length > 0) {
    return { ok: false, why: `it was stored cut to fit (${stored.cut.join(', ')})` };
  }
  if (stored.as_json !== undefined && stored.as_json.length > 0) {
    return { ok: false, why: `it came malformed (${stored.as_json.join(', ')} not text)` };
  }
  const headers = parseHeaders(stored.headers);
  if (headers === undefined) return { ok: false, why: 'its headers were malformed' };
  const kafkaRecord = {
    topic: stored.topic ?? '',
    partition: stored.partition ?? -1,
    offset: stored.offset,
    timestamp: stored.timestamp ?? 0,
    timestampType: stored.timestampType ?? 'CREATE_TIME',
    key: stored.key ?? null,
    value: stored.value ?? null,
    headers,
  } as KafkaEventRecord;
  return oneRecordEvent(REPLAY_ENVELOPE, id.slice(0, at), kafkaRecord);
}

/**
 * The one-record event that redelivers `record` under its own coordinates (records map key `partitionKey`,
 * its partition and offset) in `envelope`, and the record as the consumer decodes it.
 */
export function oneRecordEvent(
  envelope: Omit<KafkaEvent, 'records'>,
  partitionKey: string,
  kafkaRecord: KafkaEventRecord,
): ReplayableEvent {
  const event: KafkaEvent = { ...envelope, records: { [partitionKey]: [kafkaRecord] } };
  const record = decodeEvent(event)[0]?.records[0];
  if (record === undefined) return { ok: false, why: 'it could not be rebuilt' };
  return { ok: true, event, record };
}

/** A record as the event carries it, in the stored form the readers here take (readableRecord). */
export function storedRecordOf(record: KafkaEventRecord): StoredRecord {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: record.timestampType,
    key: record.key ?? null,
    value: record.value ?? null,
    headers: JSON.stringify(record.headers ?? []),
  };
}

/**
 * The dedup key the consumer derives for the record, where the tool can know it; else undefined (the
 * replay then says `acked`). The tool reads values as JSON only, and a consumer's value format is set in
 * its code (createInboxConsumer({ valueFormat }), no variable says it): for a value that is not JSON (an
 * Avro or Protobuf consumer's) the engine may have read a key from the value where the tool would fall
 * back to coordinates, and a wrong key would judge another row. So there only a header's key is trusted
 * (docs/operate.md#replay).
 */
export function dedupKeyOf(record: DecodedRecord, policy: DedupKeyPolicy): string | undefined {
  const derived = deriveDedupKey(record, policy);
  if (!derived.ok) return undefined;
  return derived.from === 'header' || record.json.ok ? derived.key : undefined;
}

function parseHeaders(text: string | null | undefined): Record<string, number[]>[] | undefined {
  if (text === null || text === undefined) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed === null ? [] : Array.isArray(parsed) ? (parsed as Record<string, number[]>[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The value's size in bytes as it came; `approximate` when it was cut and only its length is known. */
export function valueSize(stored: StoredRecord): { readonly bytes: number; readonly approximate: boolean } {
  if (stored.value_truncated === true) {
    return { bytes: Math.floor(((stored.value_chars ?? 0) * 3) / 4), approximate: true };
  }
  return {
    bytes: typeof stored.value === 'string' ? Buffer.from(stored.value, 'base64').length : 0,
    approximate: false,
  };
}

export interface ReadableRecord {
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  readonly offset: number | null | undefined;
  readonly timestamp: string | undefined;
  readonly key: { readonly text: string } | { readonly base64: string } | null;
  readonly headers:
    | readonly { readonly name: string; readonly text?: string; readonly base64?: string }[]
    | string;
  readonly value: { readonly json: unknown } | { readonly base64: string } | null;
  readonly valueBytes: number;
  readonly valueTruncated: boolean;
}

/** The record for a person: text where the bytes are UTF-8, the value as JSON where it parses. */
export function readableRecord(stored: StoredRecord): ReadableRecord {
  const headers = parseHeaders(stored.headers);
  return {
    topic: stored.topic,
    partition: stored.partition,
    offset: stored.offset,
    timestamp: typeof stored.timestamp === 'number' ? new Date(stored.timestamp).toISOString() : undefined,
    key: typeof stored.key === 'string' ? textOrBase64(Buffer.from(stored.key, 'base64')) : null,
    headers:
      headers === undefined
        ? (stored.headers ?? '')
        : headers.flatMap((entry) =>
            Object.entries(entry).map(([name, bytes]) => {
              const buffer = Buffer.from(new Int8Array(Array.isArray(bytes) ? bytes : []).buffer);
              const readable = textOrBase64(buffer);
              return { name, ...readable };
            }),
          ),
    value:
      typeof stored.value === 'string' ? jsonOrBase64(stored.value, stored.value_truncated === true) : null,
    valueBytes: valueSize(stored).bytes,
    valueTruncated: stored.value_truncated === true,
  };
}

function textOrBase64(bytes: Buffer): { readonly text: string } | { readonly base64: string } {
  const text = decodeUtf8(bytes);
  return text === undefined ? { base64: bytes.toString('base64') } : { text };
}

function jsonOrBase64(
  base64: string,
  truncated: boolean,
): { readonly json: unknown } | { readonly base64: string } {
  // A cut value is a prefix: never JSON, and shown as the bytes that were kept.
  if (!truncated) {
    const text = decodeUtf8(Buffer.from(base64, 'base64'));
    if (text !== undefined) {
      try {
        return { json: JSON.parse(text) as unknown };
      } catch {
        // not JSON: base64 below
      }
    }
  }
  return { base64 };
}
