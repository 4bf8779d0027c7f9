/**
 * The quarantine row: the raw record kept for an operator, under a key no other record shares. Every
 * field is bounded in UTF-8 bytes (what DynamoDB counts) and cut fields are named in `cut`, so the row
 * stays under DynamoDB's 400 KB item limit by construction, whatever the record
 * (docs/design.md#quarantine-rows). Nothing here can throw: see bounded-text.ts.
 */
import { boundedJson, boundedString, hashJson, hashString } from './bounded-text.js';
import type { DecodedRecord } from './decode-event.js';
import { INBOX_ATTRIBUTES as A, INBOX_STATUS, quarantineRowKey } from './inbox-item.js';
import type { QuarantineEntry } from './inbox-store.js';

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

/** The whole QUARANTINED item for DynamoDB. */
export function quarantineItem(
  consumer: string,
  entry: QuarantineEntry,
  nowMs: number,
): Record<string, unknown> {
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
  const recordAttribute: Record<string, unknown> = {
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
  };
}
