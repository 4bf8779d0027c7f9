/**
 * What an effect emits, checked and turned into the outbox table's appends (docs/outbox.md): one Update
 * per queue row (consumer, topic, key), appending that key's events in the order the effect listed them,
 * committed in the transaction that writes the inbox row. An event that can never be appended (a bad topic
 * name, too large) is the record's problem, found before anything is written.
 */
import type { EffectWrite } from './effect.js';
import { outboxEventId } from './outbox-event-id.js';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_EVENT_FIELDS as F,
  KAFKA_TOPIC_PATTERN,
  OUTBOX_CHANGE,
  OUTBOX_EVENT_ID_HEADER,
  OUTBOX_LIMITS,
  type OutboxEvent,
  outboxKeyPart,
  outboxQueueKey,
} from './outbox-rows.js';
import { TRACEPARENT_HEADER } from './telemetry/trace-context.js';

/** Where a consumer's events go. */
export interface OutboxTarget {
  readonly tableName: string;
  readonly consumer: string;
}

/** The appends of one record, or why its events cannot be appended. */
export type OutboxAppends =
  | { readonly ok: true; readonly writes: readonly EffectWrite[] }
  | { readonly ok: false; readonly problem: string };

/**
 * The outbox appends among a transaction's writes, and their size: the store answers a failed append
 * condition as back-pressure, not as the effect's business rule, and group commit sizes them without
 * serialising their values.
 */
const APPEND_BYTES = new WeakMap<EffectWrite, number>();

export function isOutboxAppend(write: EffectWrite): boolean {
  return APPEND_BYTES.has(write);
}

/**
 * What a failed condition on an append means: the key's unpublished events are at their limit, so the
 * record waits (is retried) until the relay has published some; never the effect's business rule.
 */
export function outboxBacklogMessage(write: EffectWrite): string {
  const values = 'Update' in write ? (write.Update.ExpressionAttributeValues ?? {}) : {};
  return `the outbox holds ${OUTBOX_LIMITS.pendingBytes} bytes of unpublished events for ${String(values[':topic'])} key ${JSON.stringify(short(String(values[':key'])))}: waiting for the relay`;
}

/** The bytes an append adds to a transaction (its events and a bound for the row's other attributes). */
export function outboxAppendBytes(write: EffectWrite): number | undefined {
  return APPEND_BYTES.get(write);
}

/**
 * One event as it is stored and published: checked, with its id and its size (what `pending_bytes`
 * counts). Stores build their rows from these (DynamoDB: outboxAppends; Postgres: its outbox table).
 */
export interface OutboxEmission {
  readonly id: string;
  readonly topic: string;
  readonly key: string;
  readonly value: string | Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 bytes of value, key and headers. */
  readonly bytes: number;
}

export type OutboxEmissions =
  | { readonly ok: true; readonly emissions: readonly OutboxEmission[] }
  | { readonly ok: false; readonly problem: string };

/**
 * A record's events, checked, in the effect's order. Each event's id is outboxEventId(consumer, dedupKey,
 * its position in `events`), so a redelivery of the record names its events alike.
 */
export function outboxEmissions(
  consumer: string,
  dedupKey: string,
  events: readonly OutboxEvent[],
  traceparent?: string,
): OutboxEmissions {
  const emissions: OutboxEmission[] = [];
  for (const [position, given] of events.entries()) {
    const problem = eventProblem(given);
    if (problem !== undefined) return { ok: false, problem: `event ${position}: ${problem}` };
    const event = carryingTrace(given, traceparent);
    emissions.push({
      id: outboxEventId(consumer, dedupKey, position),
      topic: event.topic,
      key: event.key,
      value: event.value,
      headers: { ...event.headers },
      // As the effect gave it: the trace header is never what makes a record's events too large.
      bytes: eventBytes(given),
    });
  }
  return { ok: true, emissions };
}

/**
 * The DynamoDB appends for a record's events: one Update per queue row, in first-appearance order of the
 * rows, each appending its key's events in the effect's order. `nowMs` is when they committed, as the relay
 * measures its lag.
 */
export function outboxAppends(
  target: OutboxTarget,
  dedupKey: string,
  events: readonly OutboxEvent[],
  nowMs: number,
  traceparent?: string,
): OutboxAppends {
  const checked = outboxEmissions(target.consumer, dedupKey, events, traceparent);
  if (!checked.ok) return checked;
  const queues = new Map<
    string,
    { event: OutboxEmission; items: Record<string, unknown>[]; bytes: number }
  >();
  for (const emission of checked.emissions) {
    const pk = outboxQueueKey(target.consumer, emission.topic, outboxKeyPart(emission.key));
    const queue = queues.get(pk) ?? { event: emission, items: [], bytes: 0 };
    queue.items.push({
      [F.id]: emission.id,
      [F.value]: emission.value,
      [F.headers]: emission.headers,
      [F.committedAt]: nowMs,
      [F.source]: dedupKey,
    });
    queue.bytes += emission.bytes;
    queues.set(pk, queue);
  }
  const writes: EffectWrite[] = [];
  for (const [pk, queue] of queues) {
    if (queue.bytes > OUTBOX_LIMITS.pendingBytes) {
      return {
        ok: false,
        problem: `the events for ${queue.event.topic} key ${JSON.stringify(short(queue.event.key))} hold ${queue.bytes} bytes; one key's unpublished events may hold ${OUTBOX_LIMITS.pendingBytes}`,
      };
    }
    const write = outboxQueueAppend({
      tableName: target.tableName,
      consumer: target.consumer,
      topic: queue.event.topic,
      key: queue.event.key,
      events: queue.items,
      bytes: queue.bytes,
      nowMs,
    });
    APPEND_BYTES.set(write, queue.bytes + APPEND_OVERHEAD_BYTES + Buffer.byteLength(pk) * 2);
    writes.push(write);
  }
  return { ok: true, writes };
}

/** One queue row's append: events (stored elements, oldest first) for a consumer's topic and key. */
export interface OutboxQueueAppend {
  readonly tableName: string;
  readonly consumer: string;
  readonly topic: string;
  /** The Kafka key, whole (the partition key holds its hash when long). */
  readonly key: string;
  /** The elements to add at the END of the row's `events`, in order (OUTBOX_EVENT_FIELDS). */
  readonly events: readonly Readonly<Record<string, unknown>>[];
  /** What they count for in `pending_bytes` (eventBytes of each). */
  readonly bytes: number;
  /** `oldest_at` when the row has none. */
  readonly nowMs: number;
}

/** An append: an Update of one queue row. */
export type OutboxAppendWrite = Extract<EffectWrite, { readonly Update: unknown }>;

/**
 * The one way events enter a queue row, the consumer's and the operator's republish alike
 * (docs/outbox.md#the-outbox-table): at the end of the list, `pending_bytes` raised, `change` set to
 * `appended` (the relay's stream filter lets only that through), under the back-pressure condition.
 */
export function outboxQueueAppend(append: OutboxQueueAppend): OutboxAppendWrite {
  return {
    Update: {
      TableName: append.tableName,
      Key: { [A.pk]: outboxQueueKey(append.consumer, append.topic, outboxKeyPart(append.key)) },
      UpdateExpression:
        'SET #events = list_append(if_not_exists(#events, :empty), :events), #change = :appended, ' +
        '#oldestAt = if_not_exists(#oldestAt, :now), #consumer = :consumer, #topic = :topic, #key = :key ' +
        'ADD #pendingBytes :bytes',
      // Back-pressure: a key whose unpublished events would pass the limit waits for the relay.
      ConditionExpression: 'attribute_not_exists(#pendingBytes) OR #pendingBytes <= :room',
      ExpressionAttributeNames: {
        '#events': A.events,
        '#change': A.change,
        '#oldestAt': A.oldestAt,
        '#consumer': A.consumer,
        '#topic': A.topic,
        '#key': A.kafkaKey,
        '#pendingBytes': A.pendingBytes,
      },
      ExpressionAttributeValues: {
        ':empty': [],
        ':events': append.events,
        ':appended': OUTBOX_CHANGE.appended,
        ':now': append.nowMs,
        ':consumer': append.consumer,
        ':topic': append.topic,
        ':key': append.key,
        ':bytes': append.bytes,
        ':room': OUTBOX_LIMITS.pendingBytes - append.bytes,
      },
    },
  };
}

/** An append's expression, names and fixed attributes, generously. */
const APPEND_OVERHEAD_BYTES = 1_024;

/** UTF-8 bytes of an event's value, key and headers: what `pending_bytes` counts. */
export function eventBytes(event: OutboxEvent): number {
  let bytes = Buffer.byteLength(event.key) + valueBytes(event.value);
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  return bytes;
}

function valueBytes(value: string | Uint8Array): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : value.byteLength;
}

function eventProblem(event: OutboxEvent): string | undefined {
  if (event === null || typeof event !== 'object') return 'not an object';
  if (typeof event.topic !== 'string' || !KAFKA_TOPIC_PATTERN.test(event.topic)) {
    return `topic ${JSON.stringify(event.topic)} is not a Kafka topic name (1-249 of [A-Za-z0-9._-])`;
  }
  if (typeof event.key !== 'string') return 'key must be a string (events are ordered per key)';
  if (typeof event.value !== 'string' && !(event.value instanceof Uint8Array)) {
    return 'value must be a string or bytes (Uint8Array)';
  }
  const headers = event.headers ?? {};
  if (typeof headers !== 'object' || headers === null) return 'headers must be an object of strings';
  const names = Object.keys(headers);
  if (names.length > OUTBOX_LIMITS.headers) {
    return `${names.length} headers; an event may carry ${OUTBOX_LIMITS.headers}`;
  }
  for (const name of names) {
    if (name === OUTBOX_EVENT_ID_HEADER) {
      return `header ${OUTBOX_EVENT_ID_HEADER} is the outbox's own (the event's id); name yours otherwise`;
    }
    if (typeof headers[name] !== 'string') return `header ${JSON.stringify(name)} must be a string`;
  }
  const bytes = eventBytes(event);
  if (bytes > OUTBOX_LIMITS.eventBytes) {
    return `${bytes} bytes of value, key and headers; an event may hold ${OUTBOX_LIMITS.eventBytes}`;
  }
  return undefined;
}

/**
 * The emitting record's span rides onward as the event's `traceparent` (docs/tracing.md#onward-events), so
 * the next consumer's record links to it; an event that names its own keeps it. Added past the checks and
 * left out of the counted bytes: the header is the consumer's, not one of the effect's 64, and never the
 * reason a record's events are refused or wait.
 */
function carryingTrace(event: OutboxEvent, traceparent: string | undefined): OutboxEvent {
  // Named in any case: an event that carries its own keeps it, with no second one beside it.
  const own = Object.keys(event.headers ?? {}).some((name) => name.toLowerCase() === TRACEPARENT_HEADER);
  if (traceparent === undefined || own) return event;
  return { ...event, headers: { ...event.headers, [TRACEPARENT_HEADER]: traceparent } };
}

function short(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}
