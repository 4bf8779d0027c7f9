import { createHash } from 'node:crypto';

/**
 * The outbox table's rows, named once (docs/outbox.md#the-outbox-table). The consumer appends the events an
 * effect emits in the transaction that writes its inbox row; the relay (lambdas/outbox-relay/) publishes
 * them and removes them; the operator tool lists and republishes them. All three read and write through
 * these names.
 *
 * One **queue row** per consumer, topic and Kafka key holds that key's unpublished events as a list, in the
 * order their effects committed: DynamoDB serializes the transactions that touch one item, and each appends
 * to the list's end. DynamoDB Streams keeps the order of changes to one item only (docs/aws-facts.md#dynamodb-
 * streams-and-lambdas-stream-event-source), so keeping a key's events in one item is what lets the relay publish them in commit order.
 * One **quarantine row** per event the relay could not publish for good (too large for the topic, a topic
 * that does not exist): taken out of its queue so it never blocks the key's later events.
 */

/** The attributes of both kinds of row. */
export const OUTBOX_ATTRIBUTES = {
  /** Partition key (S): outboxQueueKey or outboxQuarantineKey. The table has no sort key. */
  pk: 'pk',
  consumer: 'consumer',
  topic: 'topic',
  /** The Kafka key (S, UTF-8), whole, even where the partition key holds its hash. */
  kafkaKey: 'kafka_key',
  /** Queue rows: the unpublished events (L of M, each OUTBOX_EVENT_FIELDS), oldest first. */
  events: 'events',
  /** Queue rows: UTF-8 bytes of the events' values, keys and headers, kept under OUTBOX_LIMITS.pendingBytes. */
  pendingBytes: 'pending_bytes',
  /** Queue rows: epoch ms the oldest unpublished event committed (the relay's lag). */
  oldestAt: 'oldest_at',
  /**
   * What the last change to the row was (OUTBOX_CHANGE). The relay's stream filter lets only `appended`
   * through, so the relay's own removals and quarantines never invoke it again.
   */
  change: 'change',
  /**
   * Queue rows: epoch ms an operator last touched the row (`msk-inbox outbox republish` of a pending id).
   * The touch must change the item: DynamoDB Streams writes no record for an update that changes no data
   * (docs/aws-facts.md#the-outbox-relays-stream-and-msk-writes), and `change` is often `appended` already.
   */
  touchedAt: 'touched_at',
  /** Quarantine rows: the event (M, OUTBOX_EVENT_FIELDS). */
  event: 'event',
  reason: 'reason',
  error: 'error',
  /** Quarantine rows: epoch ms. */
  quarantinedAt: 'quarantined_at',
} as const;

/** The fields of one event (an element of `events`, or a quarantine row's `event`). */
export const OUTBOX_EVENT_FIELDS = {
  /** The event's id (UUIDv5, outboxEventId): sent as its `event_id` header, so the next inbox absorbs repeats. */
  id: 'id',
  /** The value: S when the effect gave text, B when it gave bytes. */
  value: 'value',
  /** M of S: the effect's headers (never `event_id`, which the relay adds from `id`). */
  headers: 'headers',
  /** Epoch ms of the commit that appended it. */
  committedAt: 'committed_at',
  /** The source event's dedup key, for an operator following an event back. */
  source: 'source',
} as const;

export const OUTBOX_CHANGE = {
  /** An effect appended events: the relay is invoked. */
  appended: 'appended',
  /** The relay removed published events (or quarantined one): filtered out of its stream. */
  published: 'published',
  /** A quarantine row was written or updated: filtered out of its stream. */
  quarantined: 'quarantined',
} as const;

export type OutboxChange = (typeof OUTBOX_CHANGE)[keyof typeof OUTBOX_CHANGE];

/** The header the relay sets from the event's id: the next consumer's default dedup header. */
export const OUTBOX_EVENT_ID_HEADER = 'event_id';

/** Sizes, in UTF-8 bytes (DynamoDB's item limit is 400 KB: docs/aws-facts.md). */
export const OUTBOX_LIMITS = {
  /** One event's value, key and headers: a larger one is refused when planned (quarantined). */
  eventBytes: 256 * 1024,
  /**
   * A queue row's unpublished events. An append that would pass it waits (the record is retried) until
   * the relay catches up: back-pressure instead of a row over DynamoDB's item limit.
   */
  pendingBytes: 320 * 1024,
  /** A Kafka key longer than this is hashed in the partition key (which stops at 2,048 bytes). */
  keyBytesInPk: 1_024,
  /** Headers per event. */
  headers: 64,
} as const;

/** What an effect emits: one event for the next topic. */
export interface OutboxEvent {
  /** The topic to publish to (Kafka's topic name rules). */
  readonly topic: string;
  /**
   * The Kafka key (UTF-8). Events with one topic and key are published in the order their effects
   * committed; it also picks the partition, as any producer's key does.
   */
  readonly key: string;
  /** The value: text (UTF-8) or bytes. */
  readonly value: string | Uint8Array;
  /** Headers besides `event_id`, which the outbox sets. */
  readonly headers?: Readonly<Record<string, string>>;
}

const QUEUE_WORD = 'queue';
const QUARANTINE_WORD = 'quarantine';

/**
 * The queue row of a consumer's topic and key. Consumer names hold no `#` (CONSUMER_NAME_PATTERN), topic
 * names none either (Kafka allows `[A-Za-z0-9._-]`), so the key is the rest, whole or (when long) hashed.
 */
export function outboxQueueKey(consumer: string, topic: string, keyPart: string): string {
  return `${QUEUE_WORD}#${consumer}#${topic}#${keyPart}`;
}

/** The Kafka key as it stands in a queue row's partition key: whole, or its SHA-256 when long. */
export function outboxKeyPart(key: string): string {
  return Buffer.byteLength(key) <= OUTBOX_LIMITS.keyBytesInPk
    ? key
    : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** The quarantine row of one event. */
export function outboxQuarantineKey(consumer: string, eventId: string): string {
  return `${QUARANTINE_WORD}#${consumer}#${eventId}`;
}

/** The prefixes the operator tool lists by (a Scan with `begins_with`): one consumer's, or every one's. */
export function outboxRowPrefix(kind: 'queue' | 'quarantine', consumer?: string): string {
  return `${kind === 'queue' ? QUEUE_WORD : QUARANTINE_WORD}#${consumer === undefined ? '' : `${consumer}#`}`;
}

/** Kafka's rule for topic names. */
export const KAFKA_TOPIC_PATTERN = /^[A-Za-z0-9._-]{1,249}$/;
