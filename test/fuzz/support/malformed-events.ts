/**
 * Kafka events no producer should send, as fast-check arbitraries: bad base64, non-JSON and huge values,
 * missing or non-string ids, odd header bytes, unknown fields, wrong types, empty batches, topic names
 * with dashes. Every event goes through JSON, as Lambda delivers it.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { UnreportableRecordError } from '../../../lambdas/core/errors.js';
import { isReported } from '../../../lambdas/core/outcome.js';
import { signedBytes } from '../../support/kafka-events.js';

export const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

/** Strings of every kind, lone surrogates included. */
export const anyString = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

export const eventId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('evt-1', 'evt-2', 'evt-3') },
  anyString,
);

export const orderValue = fc
  .record({
    event_id: fc.oneof(
      { weight: 6, arbitrary: eventId },
      fc.constantFrom<unknown>(null, '', 42, true, { nested: 'id' }, ['evt-1']),
    ),
    type: fc.oneof(
      { weight: 6, arbitrary: fc.constant('OrderPlaced') },
      fc.constantFrom('OrderCancelled', 7, null),
    ),
    order_id: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('o-1', 'o-2') },
      fc.constantFrom<unknown>('', 5, null),
    ),
    account_id: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('a-1', 'a-2') },
      fc.constantFrom<unknown>('', [], null),
    ),
    amount: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
      fc.constantFrom<unknown>(0, -5, 1.5, '12', null, 2 ** 60),
    ),
    extra: fc.option(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    ),
  })
  .map(({ extra, ...order }) => ({ ...(extra ?? {}), ...order }));

/** The value's bytes: a JSON order most of the time, else anything. */
export const valueBytes = fc.oneof(
  { weight: 40, arbitrary: orderValue.map((order) => Buffer.from(JSON.stringify(order))) },
  { weight: 8, arbitrary: anyString.map((text) => Buffer.from(text)) },
  { weight: 8, arbitrary: fc.uint8Array({ maxLength: 32 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 4,
    arbitrary: fc.jsonValue({ maxDepth: 2 }).map((json) => Buffer.from(JSON.stringify(json) ?? 'null')),
  },
  {
    // Huge: far past what a quarantine row keeps (it truncates at 300,000 base64 characters).
    weight: 1,
    arbitrary: fc
      .tuple(orderValue, fc.integer({ min: 250_000, max: 450_000 }), fc.boolean())
      .map(([order, size, json]) =>
        Buffer.from(json ? JSON.stringify({ ...order, padding: 'x'.repeat(size) }) : 'y'.repeat(size)),
      ),
  },
);

/** How the bytes travel: base64 as Lambda sends them, or something that is not base64 at all. */
export const encoded = (bytes: fc.Arbitrary<Buffer>) =>
  fc.oneof(
    { weight: 12, arbitrary: bytes.map((b) => base64(b)) },
    { weight: 1, arbitrary: bytes.map((b) => `${base64(b)}!`) },
    { weight: 1, arbitrary: bytes.map((b) => base64(b).replaceAll('=', '').concat('A')) },
    {
      weight: 1,
      arbitrary: bytes.map((b) => base64(b).replaceAll('+', '-').replaceAll('/', '_').concat('-_')),
    },
    { weight: 1, arbitrary: bytes.map((b) => `${base64(b)}\n`) },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 12, true, { b64: 'x' }, ['YQ=='], undefined) },
  );

export const headerEntry = fc.oneof(
  { weight: 8, arbitrary: eventId.map((id) => ({ event_id: signedBytes(id) })) },
  fc.constantFrom<unknown>(
    { event_id: [200, 300] },
    { event_id: [-129] },
    { event_id: [1.5] },
    { event_id: 'evt-1' },
    { event_id: null },
    { event_id: [-61, 40] },
    { event_id: [] },
    { event_id: [101, 118, 116], trace: [49] },
    { '': [1] },
    'event_id',
    7,
    null,
    [1, 2],
  ),
  fc
    .tuple(anyString, fc.array(fc.integer({ min: -128, max: 127 }), { maxLength: 8 }))
    .map(([name, bytes]) => ({
      [name]: bytes,
    })),
);

export const headers = fc.oneof(
  { weight: 8, arbitrary: fc.array(headerEntry, { maxLength: 3 }) },
  fc.constantFrom<unknown>(undefined, null, { event_id: [101] }, 'event_id=evt-1', 5),
);

export const topic = fc.constantFrom('orders', 'my-orders-topic', 'a-b-c', 'eu-west-1.orders-v2', 'x');

export const partitionKey = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(topic, fc.nat(5)).map(([t, p]) => `${t}-${p}`) },
  fc.constantFrom(
    'nodash',
    '',
    '-',
    'orders-',
    'orders--1',
    'orders-x',
    'orders-1.5',
    '__proto__',
    'constructor',
  ),
  anyString,
);

/** Optional in the JSON sense: sometimes the field is absent altogether. */
export const field = <T>(arbitrary: fc.Arbitrary<T>, odd: readonly unknown[]) =>
  fc.oneof({ weight: 10, arbitrary }, fc.constantFrom<unknown>(undefined, ...odd));

export const record = fc
  .record({
    topic: field(topic, ['', 5, null]),
    partition: field(fc.nat(5), [-1, '0', 1.5, null]),
    offset: field(fc.nat(40), [-1, 1.5, '7', null, 2 ** 60]),
    timestamp: field(fc.integer({ min: 0, max: 2 ** 42 }), ['2026-11-29', null]),
    timestampType: field(fc.constantFrom('CREATE_TIME', 'LOG_APPEND_TIME'), ['WEIRD', 5]),
    key: encoded(fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b))),
    value: encoded(valueBytes),
    headers,
    unknown: fc.option(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    ),
  })
  .map(({ unknown, ...fields }) => ({ ...(unknown ?? {}), ...fields }));

export const batch = fc.record({
  eventSource: fc.constantFrom('aws:kafka', 'SelfManagedKafka', 'something-else'),
  eventSourceArn: field(fc.constant('arn:aws:kafka:us-east-1:123456789012:cluster/demo/x'), [5]),
  bootstrapServers: field(fc.constant('b-1:9092,b-2:9092'), [null]),
  records: fc.dictionary(
    partitionKey,
    fc.array(fc.oneof({ weight: 20, arbitrary: record }, fc.constantFrom<unknown>(null, 5, 'x', [], true)), {
      maxLength: 4,
    }),
    { maxKeys: 3 },
  ),
  extra: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 })),
});

/** As Lambda hands it to the function: parsed from JSON (undefined fields gone, `__proto__` a plain key). */
export const asDelivered = (event: unknown): unknown => JSON.parse(JSON.stringify(event) ?? 'null');

export const validEnvelope = batch.map(({ extra, ...event }) => asDelivered({ ...(extra ?? {}), ...event }));

export const badEnvelope = fc.oneof(
  fc.constantFrom<unknown>(null, undefined, 0, 'records', [], [{ records: {} }], true),
  fc.constant({ eventSource: 'aws:kafka' }),
  fc.constantFrom<unknown>(null, [], 'x', 5).map((records) => ({ eventSource: 'aws:kafka', records })),
  fc
    .tuple(partitionKey, fc.constantFrom<unknown>(null, {}, 'x', 5, { 0: {} }), validEnvelope)
    .map(([key, list, good]) => ({
      ...(good as object),
      records: { ...(good as { records: object }).records, [key]: list },
    })),
);

/** Records of the event as the engine identifies them: `<records key>@<offset>` or `<records key>#<index>`. */
export function recordsOf(event: unknown): { coordinates: string; offset: number | undefined }[] {
  const records = (event as { records: Record<string, unknown[]> }).records;
  return Object.entries(records).flatMap(([key, list]) =>
    list.map((raw, index) => {
      const offset = (raw as { offset?: unknown } | null)?.offset;
      const usable = typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0;
      return {
        coordinates: usable ? `${key}@${offset}` : `${key}#${index}`,
        offset: usable ? offset : undefined,
      };
    }),
  );
}

/**
 * Identifiers of a response that name no record of the event (Lambda would retry the whole batch for one):
 * each must be `{ partition: <records key>, offset: <an offset of that partition> }`.
 */
export function foreignIdentifiers(
  event: unknown,
  response: { batchItemFailures: { itemIdentifier: { partition: string; offset: number } }[] },
): string[] {
  const known = new Set(recordsOf(event).flatMap((r) => (r.offset === undefined ? [] : [r.coordinates])));
  return response.batchItemFailures
    .map(({ itemIdentifier: { partition, offset } }) => `${partition}@${offset}`)
    .filter((coordinates) => !known.has(coordinates));
}

/**
 * Lambda commits a partition up to its lowest reported offset and redelivers everything from it on, so the
 * response must name every record of the partition from that offset on: returns those it leaves out.
 */
export function unnamedAfterLowestReported(
  event: unknown,
  response: { batchItemFailures: { itemIdentifier: { partition: string; offset: number } }[] },
): string[] {
  const lowest = new Map<string, number>();
  for (const {
    itemIdentifier: { partition, offset },
  } of response.batchItemFailures) {
    lowest.set(partition, Math.min(offset, lowest.get(partition) ?? offset));
  }
  const named = new Set(
    response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
  );
  const records = (event as { records: Record<string, unknown[]> }).records;
  return Object.entries(records).flatMap(([key, list]) =>
    list.flatMap((raw) => {
      const offset = (raw as { offset?: unknown } | null)?.offset;
      const from = lowest.get(key);
      if (from === undefined || typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < from)
        return [];
      return named.has(`${key}@${offset}`) ? [] : [`${key}@${offset}`];
    }),
  );
}

type BatchResponse = { batchItemFailures: { itemIdentifier: { partition: string; offset: number } }[] };

/**
 * What is wrong with a batch response, by rule (all empty when it is right): a reported record it does not
 * name, an identifier naming no record of the event, a record after a partition's lowest reported offset
 * it leaves out (Kafka's checkpoint would skip it).
 */
export function responseProblems(
  event: unknown,
  response: BatchResponse,
  outcomes: readonly {
    partitionKey: string;
    coordinates: string;
    offset: number | undefined;
    status: Parameters<typeof isReported>[0];
  }[],
): { unnamedReported: string[]; foreign: string[]; unnamedAfterLowest: string[] } {
  const named = new Set(
    response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
  );
  const namedPartitions = new Set(response.batchItemFailures.map((f) => f.itemIdentifier.partition));
  return {
    // A reported record without an offset is covered when a record delivered before it is named.
    unnamedReported: outcomes
      .filter((o) =>
        isReported(o.status) && o.offset === undefined
          ? !namedPartitions.has(o.partitionKey)
          : isReported(o.status) && !named.has(o.coordinates),
      )
      .map((o) => o.coordinates),
    foreign: foreignIdentifiers(event, response),
    unnamedAfterLowest: unnamedAfterLowestReported(event, response),
  };
}

export const NO_RESPONSE_PROBLEMS = { unnamedReported: [], foreign: [], unnamedAfterLowest: [] };

/**
 * Invokes and returns the response. The one throw allowed for a well-formed envelope: a record that must be
 * retried has no offset a response could name, so the whole batch fails; then undefined.
 */
export async function responseUnlessUnreportable(
  invoke: (event: unknown) => Promise<BatchResponse>,
  event: unknown,
): Promise<BatchResponse | undefined> {
  try {
    return await invoke(event);
  } catch (error) {
    expect(error).toBeInstanceOf(UnreportableRecordError);
    // Only a partition whose first record has no offset can leave nothing before it to report.
    const records = (event as { records: Record<string, unknown[]> }).records;
    const firstUnusable = Object.entries(records).some(
      ([key, list]) => recordsOf({ records: { [key]: list.slice(0, 1) } })[0]?.offset === undefined,
    );
    expect(firstUnusable).toBe(true);
    return undefined;
  }
}

/** What the promise rejected with, or undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
}

/** A stable hash, so a refused row is refused on every try. */
export function hashOf(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}
