/**
 * Hostile batches, as fast-check arbitraries: what a producer, a broken client or a broken envelope can
 * put in a Kafka event Lambda delivers. Records of every size up to the ESM's 6 MB batch, arbitrary bytes,
 * arbitrary nesting, arbitrary header shapes and coordinates, ids that collide or are ill-formed, keys
 * DynamoDB refuses. Shared by the property test (test/property/poison-promise.test.ts) and the soak.
 */
import fc from 'fast-check';
// Lambda's cap on one invocation's event (docs/aws-facts.md#esm-limits-and-metrics): one constant for the emulator.
import { MAX_INVOCATION_PAYLOAD_BYTES } from '../esm/msk-event.js';

const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');
const signedBytes = (bytes: Uint8Array) => Array.from(new Int8Array(bytes));

/** A JSON value nested `depth` deep (arrays or objects), built without recursion. */
function nested(depth: number, leaf: unknown, asObject: boolean): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = asObject ? { n: value } : [value];
  return value;
}

/**
 * Nesting inside the event's own structure (headers): V8's JSON.stringify recurses, so the generator,
 * which sends every event through JSON as Lambda does, stays under its stack. Deeper header nesting has a
 * regression test of its own (test/integration/core/poison-records.test.ts).
 */
const deepValue = fc
  .tuple(fc.integer({ min: 1, max: 1_500 }), fc.boolean())
  .map(([depth, asObject]) => nested(depth, 'leaf', asObject));

/** JSON text nested up to 100,000 deep, for values: written as text, never stringified. */
const deepJsonText = fc
  .tuple(fc.integer({ min: 1, max: 100_000 }), fc.boolean())
  .map(([depth, asObject]) =>
    asObject
      ? `${'{"n":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`
      : `${'['.repeat(depth)}"leaf"${']'.repeat(depth)}`,
  );

/** Strings of every kind: lone surrogates, multi-byte text, control characters, long runs. */
const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.constantFrom('evt-\ud800', 'evt-\udc00', '\u0000', '€'.repeat(3_000)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 5_000 }).map((n) => 'k'.repeat(n)) },
);

/** Ids from a small pool, so copies, redeliveries and payload conflicts happen; sometimes anything. */
const eventId = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 5 }).map((n) => `evt-${n}`) },
  { weight: 1, arbitrary: anyText },
);

const order = fc.record({
  event_id: fc.oneof({ weight: 8, arbitrary: eventId }, fc.constantFrom<unknown>(null, 42, ['evt-1'])),
  type: fc.oneof({ weight: 8, arbitrary: fc.constant('OrderPlaced') }, fc.constantFrom<unknown>('Other', 3)),
  order_id: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('o-1', 'o-2', 'o-3') }, anyText),
  // A long account id makes a business key over DynamoDB's 2,048 bytes.
  account_id: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('a-1', 'a-2') }, anyText),
  amount: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 1, max: 1_000 }) },
    fc.constantFrom<unknown>(0, '5', 1.5),
  ),
});

/** A value's bytes: an order most of the time, else anything, up to a few MB. */
const valueBytes = fc.oneof(
  { weight: 12, arbitrary: order.map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: deepJsonText.map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: fc
      // Up to 4.3 MB: 5.7 MB of base64, near the ESM's 6 MB batch.
      .tuple(
        order,
        fc.oneof(
          fc.integer({ min: 100_000, max: 1_000_000 }),
          fc.integer({ min: 3_000_000, max: 4_300_000 }),
        ),
      )
      .map(([o, size]) => Buffer.from(JSON.stringify({ ...o, padding: 'p'.repeat(size) }))),
  },
);

/** The value field as it travels: base64 as Lambda sends it, or something that is not base64 at all. */
const valueField = fc.oneof(
  { weight: 20, arbitrary: valueBytes.map((b) => base64(b)) },
  { weight: 1, arbitrary: valueBytes.map((b) => `${base64(b)}!`) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 12_345, { v: 1 }, ['x']) },
);

const headerBytes = fc.oneof(
  { weight: 6, arbitrary: eventId.map((id) => signedBytes(Buffer.from(id))) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 8 }) },
  { weight: 1, arbitrary: deepValue },
);

/** Headers: the ESM's array of one-entry objects, or any other shape. */
const headersField = fc.oneof(
  { weight: 8, arbitrary: headerBytes.map((bytes) => [{ event_id: bytes }]) },
  { weight: 2, arbitrary: fc.constant([]) },
  { weight: 1, arbitrary: fc.dictionary(anyText, headerBytes, { maxKeys: 3 }).map((entry) => [entry]) },
  { weight: 1, arbitrary: fc.oneof(deepValue, anyText, fc.constant<unknown>({ not: 'an array' })) },
);

/** An offset: the next in the partition most of the time, else anything a broken envelope could hold. */
const offsetField = (next: number) =>
  fc.oneof(
    { weight: 30, arbitrary: fc.constant<unknown>(next) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('12abc', -1, 1.5, null, undefined, 2 ** 60, '7') },
  );

const recordField = (partitionKey: string, next: number) =>
  fc.oneof(
    {
      weight: 40,
      arbitrary: fc
        .record({
          offset: offsetField(next),
          key: fc.oneof(fc.constant<unknown>(null), fc.uint8Array({ maxLength: 12 }).map(base64), anyText),
          value: valueField,
          headers: headersField,
          timestampType: fc.oneof(fc.constant<unknown>('CREATE_TIME'), anyText),
          timestamp: fc.oneof(
            { weight: 8, arbitrary: fc.constant<unknown>(1_700_000_000_000) },
            // Nanoseconds, Long.MAX and beyond: numbers the SDK cannot write exactly.
            fc.constantFrom<unknown>('now', -5, 1.7e18, 2 ** 63, -(2 ** 60), 1.5),
          ),
        })
        .map(({ offset, ...fields }) => ({
          topic: partitionKey.slice(0, partitionKey.lastIndexOf('-')),
          partition: Number(partitionKey.slice(partitionKey.lastIndexOf('-') + 1)),
          ...(offset === undefined ? {} : { offset }),
          ...fields,
        })),
    },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'not a record', 7, []) },
  );

/** Partition keys as the ESM names them, and some it never would. */
const partitionKey = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('orders-0', 'orders-1', 'order-events-eu-2') },
  { weight: 1, arbitrary: fc.constantFrom(`${'t'.repeat(3_000)}-0`, 'topic\ud800-1', 'nodash') },
);

/** One partition's records, offsets counting up from a random start. */
const partition = fc
  .tuple(partitionKey, fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 12 }))
  .chain(([key, start, count]) =>
    fc
      .tuple(...Array.from({ length: count }, (_, index) => recordField(key, start + index)))
      .map((records) => [key, records] as const),
  );

/** A well-formed envelope (an object with a records map of arrays) holding hostile records. */
export const poisonBatch = fc
  .array(partition, { minLength: 1, maxLength: 3 })
  .map((partitions) => ({
    eventSource: 'aws:kafka',
    eventSourceArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/demo/x',
    bootstrapServers: 'b-1:9092',
    records: Object.fromEntries(partitions),
  }))
  // As Lambda delivers it: through JSON, and within its 6 MB cap.
  .map((event) => JSON.parse(JSON.stringify(event)) as PoisonEvent)
  .filter((event) => Buffer.byteLength(JSON.stringify(event)) <= MAX_INVOCATION_PAYLOAD_BYTES);

export interface PoisonEvent {
  readonly eventSource: string;
  readonly records: Readonly<Record<string, readonly unknown[]>>;
}

/** The largest record and the deepest nesting of an event, for the figures a run reports. */
export function measureEvent(event: PoisonEvent): {
  readonly largestRecordBytes: number;
  readonly deepest: number;
} {
  let largestRecordBytes = 0;
  let deepest = 0;
  for (const list of Object.values(event.records)) {
    for (const record of list) {
      const text = JSON.stringify(record) ?? '';
      largestRecordBytes = Math.max(largestRecordBytes, Buffer.byteLength(text));
      deepest = Math.max(deepest, jsonDepth(text));
      // The value's own JSON, inside its base64.
      const value = (record as { value?: unknown } | null)?.value;
      if (typeof value === 'string')
        deepest = Math.max(deepest, jsonDepth(Buffer.from(value, 'base64').toString('utf8')));
    }
  }
  return { largestRecordBytes, deepest };
}

/** How deep arrays and objects nest in JSON text (brackets inside strings do not count). */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ']' || char === '}') depth -= 1;
  }
  return deepest;
}

/**
 * Records whose order names an id DynamoDB refuses as a key (over its 2,048 bytes). More than
 * MAX_REJECTIONS_WITHOUT_SUCCESS of them in one batch, with nothing applied, look systemic by design and
 * are worked off a few per delivery (store-failure.ts); a batch the promise is checked on holds fewer.
 */
export function refusedKeyRecords(event: PoisonEvent): number {
  let count = 0;
  for (const list of Object.values(event.records)) {
    for (const record of list) {
      const value = (record as { value?: unknown } | null)?.value;
      if (typeof value !== 'string') continue;
      try {
        const order = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
        const long = (id: unknown) => typeof id === 'string' && Buffer.byteLength(id) > 2_000;
        if (long(order.account_id) || long(order.order_id)) count += 1;
      } catch {
        // Not JSON: the effect never writes it.
      }
    }
  }
  return count;
}
