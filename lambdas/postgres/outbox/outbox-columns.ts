/**
 * The outbox tables' columns (schema.ts, migration 3) as the consumer writes them and the relay reads
 * them, one definition of each encoding (docs/postgres.md#outbox):
 * - `kafka_key` and `source` in sql-text.ts's injective escaped form: text cannot hold U+0000, and one
 *   stored key must stand for one Kafka key (it decides the order and the partition);
 * - `value` as bytea with `value_is_text`, so text comes back as text and bytes as bytes;
 * - `headers` as JSON text: jsonb refuses U+0000 in a string, JSON text keeps it escaped.
 */
import { checkedSchema } from '../schema.js';
import { keyOfStored } from '../sql-text.js';

/** One key's queue: events with one consumer, topic and Kafka key are published in seq order. */
export interface OutboxKey {
  readonly consumer: string;
  readonly topic: string;
  /** The Kafka key, as the effect gave it. */
  readonly kafkaKey: string;
}

/** An unpublished event, as the relay produces it. */
export interface PendingEvent extends OutboxKey {
  /** Sent as the `event_id` header (OUTBOX_EVENT_ID_HEADER). */
  readonly id: string;
  /** Its place in its key's order. */
  readonly seq: number;
  readonly value: string | Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 bytes of value, key and headers. */
  readonly bytes: number;
  /** Epoch ms it entered the outbox (its effect's commit, or a republish). */
  readonly committedAt: number;
  /** The source event's dedup key. */
  readonly source: string;
}

/** An event the relay set aside (quarantineEvent), until an operator republishes it. */
export interface QuarantinedEvent extends Omit<PendingEvent, 'seq'> {
  readonly reason: string;
  readonly error: string;
  readonly quarantinedAt: number;
}

/** The columns every event row has, in this order (outbox and outbox_quarantine alike). */
export const EVENT_COLUMNS =
  'id, consumer, topic, kafka_key, value, value_is_text, headers, bytes, committed_at, source';

/**
 * The channel an emitting transaction notifies and a relay listens on: one per schema. Postgres cuts
 * identifiers at 63 bytes, so a long schema name is cut here, the same way for NOTIFY and LISTEN.
 */
export function outboxChannel(schema: string): string {
  return `${checkedSchema(schema).slice(0, 63 - OUTBOX_CHANNEL_SUFFIX.length)}${OUTBOX_CHANNEL_SUFFIX}`;
}

const OUTBOX_CHANNEL_SUFFIX = '_outbox';

export function storedValue(value: string | Uint8Array): {
  readonly value: Buffer;
  readonly isText: boolean;
} {
  return typeof value === 'string'
    ? { value: Buffer.from(value, 'utf8'), isText: true }
    : { value: Buffer.from(value.buffer, value.byteOffset, value.byteLength), isText: false };
}

export function storedHeaders(headers: Readonly<Record<string, string>>): string {
  return JSON.stringify(headers);
}

/** A row of EVENT_COLUMNS (and `seq` where the table has it) as the relay reads it. */
export function pendingEventOf(row: Record<string, unknown>): PendingEvent {
  return { ...eventOf(row), seq: Number(row.seq) };
}

export function quarantinedEventOf(row: Record<string, unknown>): QuarantinedEvent {
  return {
    ...eventOf(row),
    reason: String(row.reason),
    error: String(row.error),
    quarantinedAt: Number(row.quarantined_at),
  };
}

function eventOf(row: Record<string, unknown>): Omit<PendingEvent, 'seq'> {
  const bytes = row.value as Buffer;
  return {
    id: String(row.id),
    consumer: String(row.consumer),
    topic: String(row.topic),
    kafkaKey: keyOfStored(String(row.kafka_key)),
    value: row.value_is_text === true ? bytes.toString('utf8') : new Uint8Array(bytes),
    headers: JSON.parse(String(row.headers)) as Record<string, string>,
    bytes: Number(row.bytes),
    // `pg` returns bigint as text.
    committedAt: Number(row.committed_at),
    source: keyOfStored(String(row.source)),
  };
}
