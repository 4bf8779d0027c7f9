/**
 * Values that are not JSON, against DynamoDB Local: the sample's order consumer (its schema, skip and
 * effect, which the harness's local/orders/ builds on) with an Avro format (Confluent framing, the demo's)
 * and a Protobuf one (Glue framing, compressed); and as the sample deploys it, JSON, on what Lambda hands
 * over with a schema registry and EventRecordFormat JSON.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import avro from 'avsc';
import { beforeAll, describe, expect, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import { quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import type { RecordOutcome, ValueFormat } from '../../../lambdas/core/index.js';
import { protobufValues } from '../../../lambdas/protobuf/protobuf-values.js';
import { encodeAvroOrder, orderAvroValues } from '../../../local/orders/order-avro.js';
import { confluentFrame, glueFrame } from '../../../local/schema-registry/wire-frames.js';
import { orderConsumer } from '../../../sample/order-consumer/order-placed.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { loadEvent } from '../../support/fixtures.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { encodeProtobufOrder, orderProtobufType } from '../../support/order-protobuf.js';

let tables: TestTables;

/** Another schema's record: what a producer of another topic would write under a Confluent header. */
const Price = avro.Type.forSchema({
  type: 'record',
  name: 'Price',
  fields: [{ name: 'price', type: 'double' }],
});

beforeAll(async () => {
  tables = await createTestTables();
});

interface Order {
  readonly event_id: string | null;
  readonly order_id: string;
  readonly account_id: string;
  readonly amount: number;
}

/** A new container each call (no completed-key cache carried over): a redelivery goes to the table. */
function container(consumerName: string, valueFormat: ValueFormat | undefined) {
  let outcomes: readonly RecordOutcome[] = [];
  const clock = new ManualClock();
  const handler = createObservedInboxConsumer(
    {
      ...orderConsumer(tables.appTableName),
      ...(valueFormat ? { valueFormat } : {}),
      settings: { inboxTableName: tables.inboxTableName, consumerName },
      dynamoDb: tables.client,
      logger: new Logger({ logLevel: 'SILENT' }),
    } as Parameters<typeof createObservedInboxConsumer>[0],
    { clock, observe: { batchProcessed: (_summary, batch) => (outcomes = batch) } },
  );
  return {
    async invoke(event: unknown) {
      const response = await handler(event, lambdaContext(clock, 60_000));
      return {
        response,
        outcomes: outcomes.map((o) => `${o.offset} ${o.status}${o.reason ? ` ${o.reason}` : ''}`),
        details: outcomes.map((o) => o.detail),
      };
    },
  };
}

const order = (n: number, accountId: string, amount: number): Order => ({
  event_id: `evt-${accountId}-${n}`,
  order_id: `ord-${accountId}-${n}`,
  account_id: accountId,
  amount,
});

/**
 * Seven records: by header, by the decoded field, garbage bytes, a schema refusal, another schema's bytes;
 * then garbage and another schema's bytes without a header, quarantined with the value's reason all the
 * same (not missing-event-id: docs/design.md#value-formats).
 */
function batch(
  accountId: string,
  encode: (order: Order & { type: string }) => Uint8Array,
  otherSchema: Uint8Array,
) {
  const placed = (o: Order) => encode({ ...o, type: 'OrderPlaced' });
  const first = order(1, accountId, 1250);
  const second = order(2, accountId, 75);
  const refused = order(4, accountId, -5);
  const specs: RecordSpec[] = [
    { offset: 1, key: accountId, headers: { event_id: first.event_id ?? '' }, value: placed(first) },
    // No header: the dedup key is the decoded value's event_id field.
    { offset: 2, key: accountId, value: placed(second) },
    {
      offset: 3,
      key: accountId,
      headers: { event_id: `evt-${accountId}-3` },
      value: Buffer.from('{"not":"framed"}'),
    },
    { offset: 4, key: accountId, headers: { event_id: refused.event_id ?? '' }, value: placed(refused) },
    { offset: 5, key: accountId, headers: { event_id: `evt-${accountId}-5` }, value: otherSchema },
    { offset: 6, key: accountId, value: Buffer.from('garbage') },
    { offset: 7, key: accountId, value: otherSchema },
  ];
  return {
    event: kafkaEvent(specs.map((spec) => ({ ...spec, topic: `orders-${accountId}` }))),
    expectedBalance: -(1250 + 75),
  };
}

const EXPECTED_FIRST = [
  '1 processed',
  '2 processed',
  '3 quarantined undecodable',
  '4 quarantined invalid-event',
  '5 quarantined undecodable',
  '6 quarantined undecodable',
  '7 quarantined undecodable',
];

async function expectAppliedOnceAndQuarantined(
  consumerName: string,
  format: ValueFormat,
  accountId: string,
  made: ReturnType<typeof batch>,
) {
  const first = await container(consumerName, format).invoke(made.event);
  const redelivery = await container(consumerName, format).invoke(made.event);

  expect(first.response.batchItemFailures).toEqual([]);
  expect(first.outcomes).toEqual(EXPECTED_FIRST);
  // The table answers the redelivery: the two applied events are duplicates, nothing is applied twice.
  expect(redelivery.outcomes.slice(0, 2)).toEqual(['1 duplicate completed', '2 duplicate completed']);
  expect(redelivery.outcomes.slice(2).every((line) => line.includes('quarantined'))).toBe(true);
  expect((await tables.get(tables.appTableName, `account#${accountId}`))?.balance).toBe(made.expectedBalance);
  expect(await tables.get(tables.inboxTableName, `${consumerName}#evt-${accountId}-2`)).toMatchObject({
    status: 'COMPLETED',
  });

  const garbage = await tables.get(
    tables.inboxTableName,
    quarantineRowKey(consumerName, `orders-${accountId}-0@3`),
  );
  expect(garbage).toMatchObject({ status: 'QUARANTINED', reason: 'undecodable' });
  expect(garbage?.error).toMatch(/bad magic byte 0x7b/);
  const refused = await tables.get(
    tables.inboxTableName,
    quarantineRowKey(consumerName, `orders-${accountId}-0@4`),
  );
  expect(refused).toMatchObject({ reason: 'invalid-event', error: 'invalid at amount' });
  const headerless = await tables.get(
    tables.inboxTableName,
    quarantineRowKey(consumerName, `orders-${accountId}-0@6`),
  );
  expect(headerless).toMatchObject({ status: 'QUARANTINED', reason: 'undecodable' });
  expect(headerless?.error).toMatch(/bad magic byte 0x67/);
  expect(first.details[5]).toMatch(/^bad magic byte 0x67/);
  expect(first.details[6]).toBe(first.details[4]);
  return first;
}

describe('a consumer of Avro values (Confluent wire format)', () => {
  it('applies each event once, takes the dedup key from the header or the decoded field, and quarantines undecodable values with the reason', async () => {
    const otherSchema = confluentFrame(2, Price.toBuffer({ price: 9.5 }));
    const first = await expectAppliedOnceAndQuarantined(
      'avro-orders',
      orderAvroValues(),
      'acct-avro',
      batch('acct-avro', (o) => encodeAvroOrder(o), otherSchema),
    );
    expect(first.details[4]).toMatch(/^value is not Avro of the schema/);
  });
});

describe('a consumer of Protobuf values (Glue wire format, zlib)', () => {
  it('applies each event once, takes the dedup key from the header or the decoded field, and quarantines undecodable values with the reason', async () => {
    const uuid = '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';
    const frame = (bytes: Uint8Array) => glueFrame(uuid, bytes, { zlib: true, messageIndex: 0 });
    const first = await expectAppliedOnceAndQuarantined(
      'protobuf-orders',
      protobufValues({ messageType: orderProtobufType }),
      'acct-proto',
      batch(
        'acct-proto',
        (o) => frame(encodeProtobufOrder({ ...o, event_id: o.event_id ?? '' })),
        // Field 1 with wire type 7, which does not exist.
        frame(Buffer.from([0x0f, 0x01])),
      ),
    );
    expect(first.details[4]).toMatch(/^value is not a Protobuf message of the type/);
  });
});

describe('the sample consumer with a schema registry and EventRecordFormat JSON', () => {
  it('applies the converted JSON values unchanged, the dedup key from the header or the JSON field', async () => {
    const event = loadEvent('schema-registry-json-event');
    const first = await container('sample-json-registry', undefined).invoke(event);
    const redelivery = await container('sample-json-registry', undefined).invoke(event);

    expect(first.outcomes).toEqual(['41 processed', '42 processed']);
    expect(redelivery.outcomes).toEqual(['41 duplicate completed', '42 duplicate completed']);
    expect((await tables.get(tables.appTableName, 'order#order-sr-1'))?.total).toBe(1250);
    expect((await tables.get(tables.appTableName, 'order#order-sr-2'))?.total).toBe(75);
  });
});
