/**
 * A queue row as the relay reads it (lambdas/core/outbox-rows.ts): from a stream record's NewImage, in
 * Lambda's JSON form, or from a consistent GetItem, in the SDK's. Each event keeps its stored map, so a
 * quarantine row holds the event exactly as the consumer wrote it.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { AttributeValue as StreamAttributeValue } from 'aws-lambda';
import { eventBytes } from '../core/outbox-appends.js';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_EVENT_FIELDS as F,
  OUTBOX_EVENT_ID_HEADER,
} from '../core/outbox-rows.js';

export type Item = Record<string, AttributeValue>;

export interface PendingEvent {
  readonly id: string;
  readonly value: string | Uint8Array;
  /** The effect's headers; `event_id` is added when it is sent. */
  readonly headers: Readonly<Record<string, string>>;
  /** Epoch ms of the commit that appended it, when the event says. */
  readonly committedAt: number | undefined;
  /** What it counts for in the row's `pending_bytes` (pendingBytesOf). */
  readonly bytes: number;
  /** The element of `events` as stored. */
  readonly stored: Item;
}

export interface QueueRow {
  readonly pk: string;
  readonly consumer: string;
  readonly topic: string;
  readonly kafkaKey: string;
  /** Oldest first. */
  readonly events: readonly PendingEvent[];
  /** Epoch ms the oldest pending event committed, when the row says. */
  readonly oldestAt: number | undefined;
}

/**
 * The bytes an event counts for in `pending_bytes`: UTF-8 bytes of its value, its key and its headers'
 * names and values (outbox-rows.ts). The consumer's append adds the same sum; the relay subtracts it.
 */
/** What an event counts for in its row's `pending_bytes`: the consumer's own count (eventBytes), one rule. */
export function pendingBytesOf(
  value: string | Uint8Array,
  key: string,
  headers: Readonly<Record<string, string>>,
): number {
  return eventBytes({ topic: '', key, value, headers });
}

/** The row an item holds, or what makes it unreadable (a row no consumer of this contract wrote). */
export function readQueueRow(item: Item): QueueRow | { readonly problem: string } {
  const pk = item[A.pk]?.S;
  const consumer = item[A.consumer]?.S;
  const topic = item[A.topic]?.S;
  const kafkaKey = item[A.kafkaKey]?.S;
  if (!pk || !consumer || !topic || kafkaKey === undefined) {
    return { problem: `a queue row needs ${A.pk}, ${A.consumer}, ${A.topic} and ${A.kafkaKey} as strings` };
  }
  const stored = item[A.events]?.L ?? [];
  const events: PendingEvent[] = [];
  for (const [index, element] of stored.entries()) {
    const event = element.M ? readEvent(element.M, kafkaKey) : `is not a map`;
    if (typeof event === 'string') return { problem: `${A.events}[${index}] ${event}` };
    events.push(event);
  }
  const oldestAt = Number(item[A.oldestAt]?.N);
  return {
    pk,
    consumer,
    topic,
    kafkaKey,
    events,
    oldestAt: Number.isFinite(oldestAt) ? oldestAt : undefined,
  };
}

function readEvent(stored: Item, kafkaKey: string): PendingEvent | string {
  const id = stored[F.id]?.S;
  if (!id) return `has no ${F.id}`;
  const value = stored[F.value]?.S ?? stored[F.value]?.B;
  if (value === undefined) return `has no ${F.value} (S or B)`;
  const headers: Record<string, string> = {};
  for (const [name, text] of Object.entries(stored[F.headers]?.M ?? {})) {
    if (text.S === undefined) return `has header ${JSON.stringify(name)} that is not a string`;
    // The id is the event's only `event_id`: a stored one would make two (outbox-rows.ts).
    if (name !== OUTBOX_EVENT_ID_HEADER) headers[name] = text.S;
  }
  const committedAt = Number(stored[F.committedAt]?.N);
  return {
    id,
    value,
    headers,
    committedAt: Number.isFinite(committedAt) ? committedAt : undefined,
    bytes: pendingBytesOf(value, kafkaKey, headers),
    stored,
  };
}

/**
 * Lambda's JSON form of a stream image in the SDK's: binary values come base64-encoded
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_AttributeValue.html).
 * Iterative, so no nesting depth can overflow the stack.
 */
export function itemOfStreamImage(image: Readonly<Record<string, StreamAttributeValue>>): Item {
  const root: Item = {};
  const work: [source: Readonly<Record<string, StreamAttributeValue>>, target: Item][] = [[image, root]];
  const pendingLists: [source: readonly StreamAttributeValue[], target: AttributeValue[]][] = [];
  const convert = (value: StreamAttributeValue): AttributeValue => {
    if (value.B !== undefined) return { B: Buffer.from(value.B, 'base64') };
    if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item, 'base64')) };
    if (value.M !== undefined) {
      const target: Item = {};
      work.push([value.M, target]);
      return { M: target };
    }
    if (value.L !== undefined) {
      const target: AttributeValue[] = [];
      pendingLists.push([value.L, target]);
      return { L: target };
    }
    // S, N, SS, NS, BOOL, NULL are the same in both forms.
    return value as AttributeValue;
  };
  while (work.length > 0 || pendingLists.length > 0) {
    const map = work.pop();
    if (map) {
      for (const [name, value] of Object.entries(map[0])) map[1][name] = convert(value);
      continue;
    }
    const [source, target] = pendingLists.pop() as [readonly StreamAttributeValue[], AttributeValue[]];
    for (const value of source) target.push(convert(value));
  }
  return root;
}
