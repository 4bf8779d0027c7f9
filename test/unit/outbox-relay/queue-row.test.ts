/**
 * Reading a queue row (lambdas/outbox-relay/queue-row.ts): from Lambda's stream image (binary as base64)
 * and the SDK's item form alike, each event's bytes as the consumer counts them, and rows no consumer of
 * the contract wrote.
 */
import type { AttributeValue } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE } from '../../../lambdas/core/outbox-rows.js';
import {
  itemOfStreamImage,
  pendingBytesOf,
  type QueueRow,
  readQueueRow,
} from '../../../lambdas/outbox-relay/queue-row.js';

const STREAM_IMAGE: Record<string, AttributeValue> = {
  [A.pk]: { S: 'queue#orders#order-events#customer-é' },
  [A.consumer]: { S: 'orders' },
  [A.topic]: { S: 'order-events' },
  [A.kafkaKey]: { S: 'customer-é' },
  [A.change]: { S: OUTBOX_CHANGE.appended },
  [A.oldestAt]: { N: '1000' },
  [A.pendingBytes]: { N: '42' },
  [A.events]: {
    L: [
      {
        M: {
          id: { S: 'id-1' },
          value: { S: '{"n":"ü"}' },
          headers: { M: { type: { S: 'shipped' } } },
          committed_at: { N: '1000' },
          source: { S: 'order-1' },
        },
      },
      {
        M: {
          id: { S: 'id-2' },
          value: { B: Buffer.from([0, 1, 255]).toString('base64') },
          headers: { M: {} },
          committed_at: { N: '2000' },
          source: { S: 'order-2' },
        },
      },
    ],
  },
};

type Spoilable = Record<string, unknown>;

function eventsOf(image: Spoilable): unknown[] {
  return (image[A.events] as { L: unknown[] }).L;
}

function eventOf(image: Spoilable, index: number): Record<string, unknown> {
  return (eventsOf(image)[index] as { M: Record<string, unknown> }).M;
}

function row(image: Record<string, unknown>): QueueRow {
  const read = readQueueRow(itemOfStreamImage(image as Record<string, AttributeValue>));
  if ('problem' in read) throw new Error(read.problem);
  return read;
}

describe('readQueueRow', () => {
  it("reads a stream image's row and events, binary values decoded from base64", () => {
    const read = row(STREAM_IMAGE);

    expect(read).toMatchObject({
      pk: 'queue#orders#order-events#customer-é',
      consumer: 'orders',
      topic: 'order-events',
      kafkaKey: 'customer-é',
      oldestAt: 1000,
    });
    expect(
      read.events.map(({ id, value, headers, committedAt }) => ({ id, value, headers, committedAt })),
    ).toEqual([
      { id: 'id-1', value: '{"n":"ü"}', headers: { type: 'shipped' }, committedAt: 1000 },
      { id: 'id-2', value: Buffer.from([0, 1, 255]), headers: {}, committedAt: 2000 },
    ]);
    // Kept as stored, in the SDK's form, for a quarantine row.
    expect(read.events[1]?.stored.value).toEqual({ B: Buffer.from([0, 1, 255]) });
    expect(read.events[0]?.stored.source).toEqual({ S: 'order-1' });
  });

  it("counts each event's UTF-8 bytes of value, key and headers, as the consumer's append does", () => {
    const [text, binary] = row(STREAM_IMAGE).events;

    // value 10 bytes ("ü" is 2), key 11 ("é" is 2), header "type" + "shipped" 11.
    expect(text?.bytes).toBe(10 + 11 + 11);
    expect(binary?.bytes).toBe(3 + 11);
    expect(pendingBytesOf('€', '', { a: 'b' })).toBe(3 + 2);
  });

  it('reads a row without events as empty, and one without oldest_at as unknown', () => {
    const { [A.events]: _events, [A.oldestAt]: _oldest, ...bare } = STREAM_IMAGE;

    expect(row(bare)).toMatchObject({ events: [], oldestAt: undefined });
  });

  it('never takes an event_id from stored headers: the id is the one sent', () => {
    const image: Spoilable = structuredClone(STREAM_IMAGE);
    (eventOf(image, 0).headers as { M: Record<string, unknown> }).M.event_id = { S: 'forged' };

    expect(row(image).events[0]?.headers).toEqual({ type: 'shipped' });
  });

  it.each([
    [
      'no topic',
      (image: Spoilable) => {
        delete image[A.topic];
      },
    ],
    [
      'an event without id',
      (image: Spoilable) => {
        delete eventOf(image, 0).id;
      },
    ],
    [
      'a value neither S nor B',
      (image: Spoilable) => {
        eventOf(image, 0).value = { N: '1' };
      },
    ],
    [
      'a header that is not text',
      (image: Spoilable) => {
        (eventOf(image, 0).headers as { M: Record<string, unknown> }).M.n = { N: '1' };
      },
    ],
    [
      'an event that is not a map',
      (image: Spoilable) => {
        eventsOf(image)[1] = { S: 'x' };
      },
    ],
  ])('names what is wrong with a row with %s', (_case, spoil) => {
    const image: Spoilable = structuredClone(STREAM_IMAGE);
    spoil(image);

    expect(readQueueRow(itemOfStreamImage(image as Record<string, AttributeValue>))).toEqual({
      problem: expect.any(String),
    });
  });
});

describe('itemOfStreamImage', () => {
  it('converts binary sets and nested lists and maps, and leaves the other types as they are', () => {
    const item = itemOfStreamImage({
      b: { BS: [Buffer.from('a').toString('base64')] },
      l: { L: [{ M: { x: { L: [{ B: Buffer.from('z').toString('base64') }] } } }, { N: '1' }] },
      s: { SS: ['a'] },
      n: { NULL: true },
      t: { BOOL: false },
    });

    expect(item).toEqual({
      b: { BS: [Buffer.from('a')] },
      l: { L: [{ M: { x: { L: [{ B: Buffer.from('z') }] } } }, { N: '1' }] },
      s: { SS: ['a'] },
      n: { NULL: true },
      t: { BOOL: false },
    });
  });

  it('survives nesting far deeper than a recursive walk would', () => {
    let value: Record<string, unknown> = { S: 'bottom' };
    for (let depth = 0; depth < 100_000; depth++) value = { L: [value] };

    expect(() => itemOfStreamImage({ deep: value as { S: string } })).not.toThrow();
  });
});
