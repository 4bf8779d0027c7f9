/**
 * The quarantine row: the raw record kept for an operator, under a key no other record shares. Every
 * field is bounded in UTF-8 bytes (what DynamoDB counts) and cut fields are named in `cut`, so the row
 * stays under DynamoDB's 400 KB item limit by construction, whatever the record
 * (docs/design.md#quarantine-rows). Nothing here can throw: see bounded-text.ts. The row is written
 * (quarantineItem) and read (readQuarantineRow, by the operator tool) through the same types.
 */
import { boundedJson, boundedString, hashJson, hashString } from './bounded-text.js';
import type { DecodedRecord } from './decode-event.js';
import {
  INBOX_ATTRIBUTES as A,
  INBOX_STATUS,
  OPERATOR_ATTRIBUTES as O,
  parseRowKey,
  quarantineRowKey,
} from './inbox-rows.js';
import type { QuarantineEntry } from './inbox-store.js';

/** The `record` attribute of a quarantine row: the record in its wire form, each field bounded. */
export interface StoredRecord {
  readonly topic?: string;
  readonly partition?: number;
  readonly offset?: number | null;
  readonly timestamp?: number | null;
  readonly timestampType?: string | null;
  /** base64 as sent. */
  readonly key?: string | null;
  /** base64 as sent. */
  readonly value?: string | null;
  /** JSON text of the headers as they came. */
  readonly headers?: string | null;
  readonly value_truncated?: boolean;
  readonly value_chars?: number;
  /** The offset or timestamp as sent, where it was not a usable number. */
  readonly offset_as_sent?: string | null;
  readonly timestamp_as_sent?: string | null;
  /** The fields cut to fit. */
  readonly cut?: readonly string[];
  /** The fields that were not strings, kept as JSON text. */
  readonly as_json?: readonly string[];
}

/** A QUARANTINED item as the engine writes it. */
// A type, not an interface: it is then a Record<string, unknown> too, as DynamoDB's client takes items.
export type QuarantineItem = {
  readonly [A.pk]: string;
  readonly [A.status]: typeof INBOX_STATUS.quarantined;
  readonly [A.reason]: string;
  readonly [A.error]: string;
  readonly [A.quarantineConsumer]: string;
  readonly [A.quarantinedAt]: number;
  readonly [A.record]: StoredRecord;
  readonly [A.dedupKey]?: string;
  readonly [A.dedupTtlSeconds]: number;
};

/** UTF-8 byte budgets of the row's fields. Their sum, with the fixed attributes, is under 360 KB. */
export const QUARANTINE_LIMITS = {
  /** The key part after `<consumer>!quarantine#`: DynamoDB's partition keys stop at 2,048 bytes. */
  keyBytes: 1_024,
  reasonBytes: 256,
  errorBytes: 2_000,
  /** Kafka topic names have at most 249 characters; more is not a topic. */
  topicBytes: 1_024,
  timestampTypeBytes: 64,
  /** offset_as_sent and timestamp_as_sent each. */
  offsetAsSentBytes: 256,
  recordKeyBytes: 16_000,
  valueBytes: 300_000,
  headersBytes: 32_000,
} as const;

/** How much of a partition key a hashed quarantine key keeps, for a person reading it. */
const READABLE_PREFIX_BYTES = 256;

/**
 * The key part of a record's quarantine row: `topic-partition@offset` as it came, so a redelivery finds
 * the same row. Too long or ill-formed, it keeps a readable prefix and a hash of the whole; without a
 * usable offset, a hash of the raw record, so two such records never share a row.
 */
export function quarantineKeyOf(record: Pick<DecodedRecord, 'partitionKey' | 'offset' | 'raw'>): string {
  const prefix = boundedString(record.partitionKey, READABLE_PREFIX_BYTES).text;
  if (record.offset === undefined) return `${prefix}#raw-${hashJson(record.raw)}`;
  const coordinates = `${record.partitionKey}@${record.offset}`;
  if (boundedString(coordinates, QUARANTINE_LIMITS.keyBytes).cut) {
    return `${prefix}@${record.offset}#${hashString(coordinates)}`;
  }
  return coordinates;
}

/** The row's partition key: the key part is bounded whatever a caller passes. */
export function quarantineRowPk(consumer: string, coordinates: string): string {
  return quarantineRowKey(consumer, boundedString(coordinates, QUARANTINE_LIMITS.keyBytes).text);
}

/** The whole QUARANTINED item for DynamoDB; `dedupTtlSeconds` is the consumer's dedup window. */
export function quarantineItem(
  consumer: string,
  entry: QuarantineEntry,
  nowMs: number,
  dedupTtlSeconds: number,
): QuarantineItem {
  const cut: string[] = [];
  const bounded = (field: string, text: { text: string; cut: boolean }) => {
    if (text.cut) cut.push(field);
    return text.text;
  };
  /** A string field as text; anything else (a producer's odd shapes) as JSON text, named in `as_json`. */
  const asJson: string[] = [];
  const textOf = (field: string, value: unknown, maxBytes: number): string | null => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return bounded(field, boundedString(value, maxBytes));
    asJson.push(field);
    return bounded(field, boundedJson(value, maxBytes));
  };
  const { record } = entry;
  const recordAttribute: Mutable<StoredRecord> = {
    topic: bounded('topic', boundedString(record.topic, QUARANTINE_LIMITS.topicBytes)),
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: textOf('timestampType', record.timestampType, QUARANTINE_LIMITS.timestampTypeBytes),
    key: textOf('key', record.key, QUARANTINE_LIMITS.recordKeyBytes),
    value: textOf('value', record.value, QUARANTINE_LIMITS.valueBytes),
    // As JSON text: malformed headers may hold anything, and must still be kept.
    headers: bounded('headers', boundedJson(record.headers ?? null, QUARANTINE_LIMITS.headersBytes)),
    value_chars: typeof record.value === 'string' ? record.value.length : 0,
  };
  // Dedup keys are at most MAX_DEDUP_KEY_BYTES (dedup-key.ts): kept whole, never cut.
  const dedupKey = entry.dedupKey === undefined ? {} : { [A.dedupKey]: entry.dedupKey };
  if (record.timestampAsSent !== undefined) {
    recordAttribute.timestamp_as_sent = textOf(
      'timestamp_as_sent',
      record.timestampAsSent,
      QUARANTINE_LIMITS.offsetAsSentBytes,
    );
  }
  if (record.offsetAsSent !== undefined) {
    recordAttribute.offset_as_sent = textOf(
      'offset_as_sent',
      record.offsetAsSent,
      QUARANTINE_LIMITS.offsetAsSentBytes,
    );
  }
  recordAttribute.value_truncated = cut.includes('value');
  if (cut.length > 0) recordAttribute.cut = cut;
  if (asJson.length > 0) recordAttribute.as_json = asJson;
  return {
    [A.pk]: quarantineRowPk(consumer, entry.coordinates),
    [A.status]: INBOX_STATUS.quarantined,
    [A.reason]: boundedString(entry.reason, QUARANTINE_LIMITS.reasonBytes).text,
    [A.error]: boundedString(entry.message, QUARANTINE_LIMITS.errorBytes).text,
    [A.quarantineConsumer]: consumer,
    [A.quarantinedAt]: nowMs,
    [A.record]: recordAttribute,
    ...dedupKey,
    [A.dedupTtlSeconds]: dedupTtlSeconds,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A quarantine row as the operator tool reads it: written by quarantineItem, then by the tool. */
export interface QuarantineRow {
  /** `<records map key>@<offset>`: the row's key after `<consumer>!quarantine#`. */
  readonly id: string;
  readonly status: string;
  readonly reason: string;
  readonly error: string;
  /** Epoch ms: when it was quarantined (for rows out of the index, when it was before). */
  readonly quarantinedAt: number | undefined;
  readonly record: StoredRecord;
  /**
   * What the consumer knew when it quarantined the record, for a replay to judge by. Undefined on rows
   * written before the consumer kept it (msk-inbox 0.1.0): a replay then derives the key from settings.
   */
  readonly consumer:
    | {
        /** The dedup key it derived; undefined where it derived none. */
        readonly dedupKey: string | undefined;
        readonly dedupTtlSeconds: number;
      }
    | undefined;
  readonly replayAttempts: number;
  /** Moved aside by a replay that has not finished (a `replaying` row): `replay ID` finishes it. */
  readonly parked: boolean;
  /** The whole item as stored. */
  readonly item: Readonly<Record<string, unknown>>;
}

/** A stored quarantine (or replaying) row of `consumer`, whatever version of the engine wrote it. */
export function readQuarantineRow(consumer: string, item: Readonly<Record<string, unknown>>): QuarantineRow {
  const pk = String(item[A.pk]);
  const key = parseRowKey(consumer, pk);
  const since = item[A.quarantinedAt] ?? item[O.quarantinedSince];
  const ttl = item[A.dedupTtlSeconds];
  const dedupKey = item[A.dedupKey];
  return {
    id: key === undefined ? pk : key.id,
    parked: key?.kind === 'replaying',
    status: String(item[A.status] ?? ''),
    reason: String(item[A.reason] ?? ''),
    error: String(item[A.error] ?? ''),
    quarantinedAt: typeof since === 'number' ? since : undefined,
    record: (item[A.record] ?? {}) as StoredRecord,
    consumer:
      typeof ttl === 'number'
        ? { dedupKey: typeof dedupKey === 'string' ? dedupKey : undefined, dedupTtlSeconds: ttl }
        : undefined,
    replayAttempts: typeof item[O.replayAttempts] === 'number' ? (item[O.replayAttempts] as number) : 0,
    item,
  };
}
