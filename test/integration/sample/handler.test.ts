import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { loadEvent } from '../../support/fixtures.js';
import { kafkaEvent, kafkaRecord, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';

describe('order consumer handler as deployed', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables();
  });
  const quarantineRow = (coordinates: string) =>
    tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#${coordinates}`);

  it('processes, skips and quarantines the records of an MSK event', async () => {
    const consumer = orderConsumer(tables);

    const response = await consumer.invoke(loadEvent('msk-event'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(consumer.lastOutcomes().map((o) => [o.coordinates, o.status, o.reason])).toEqual([
      ['order-events-0@15', 'processed', undefined],
      // A null value without a header: the value's reason (docs/design.md#value-formats).
      ['order-events-0@16', 'quarantined', 'invalid-event'],
      ['order-events-1@3', 'skipped', 'other-event-type'],
    ]);
    expect(await tables.get(tables.appTableName, 'account#acct-7')).toMatchObject({ balance: -1250 });
    expect(await tables.get(tables.appTableName, 'order#order-100')).toMatchObject({
      total: 1250,
      status: 'PLACED',
    });
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}#evt-2`)).toBeUndefined();
  });

  it('keys a self-managed Kafka record by the event_id field when it has no header', async () => {
    const consumer = orderConsumer(tables);

    const response = await consumer.invoke(loadEvent('self-managed-event'));

    expect(response.batchItemFailures).toEqual([]);
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}#evt-3`)).toMatchObject({
      status: 'COMPLETED',
      source: 'orders-2@7',
    });
    expect(await tables.get(tables.appTableName, 'account#acct-9')).toMatchObject({ balance: -500 });
  });

  it('quarantines each kind of bad record with its reason and the raw record, and acks it', async () => {
    const consumer = orderConsumer(tables);
    const badBase64 = { ...kafkaRecord({ offset: 4, headers: { event_id: 'e4' } }), value: '%%%not-base64' };
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'e1' }, value: '{"event_id": "e1", broken' },
      { offset: 2, value: { type: 'OrderPlaced', order_id: 'o2', account_id: 'a', amount: 5 } },
      {
        offset: 3,
        headers: { event_id: 'e3' },
        value: { event_id: 'e3', type: 'OrderPlaced', order_id: 'o3', amount: -5 },
      },
      orderRecord(5, { eventId: 'e5' }),
      { ...orderRecord(6, { eventId: 'e6' }), headers: { event_id: 'other-id' } },
    ]);
    (event.records['orders-0'] as unknown[]).splice(3, 0, badBase64);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastOutcomes().map((o) => [o.coordinates, o.status, o.reason])).toEqual([
      ['orders-0@1', 'quarantined', 'invalid-event'],
      ['orders-0@2', 'quarantined', 'missing-event-id'],
      ['orders-0@3', 'quarantined', 'invalid-event'],
      ['orders-0@4', 'quarantined', 'undecodable'],
      ['orders-0@5', 'processed', undefined],
      ['orders-0@6', 'quarantined', 'invalid-event'],
    ]);
    expect(await quarantineRow('orders-0@3')).toMatchObject({
      reason: 'invalid-event',
      error: 'invalid at account_id, amount',
    });
    expect(await quarantineRow('orders-0@4')).toMatchObject({
      reason: 'undecodable',
      record: { value: '%%%not-base64', offset: 4 },
    });
    const written = await tables.scan(tables.appTableName);
    expect(written.map((item) => item.pk).sort()).toEqual(['account#acct-1', 'order#order-e5']);
  });

  it('writes no second quarantine row when a quarantined record is redelivered', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([{ offset: 9, headers: { event_id: 'e9' }, value: 'not json' }]);
    await consumer.invoke(event);
    consumer.clock.advance(60_000);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    const rows = (await tables.scan(tables.inboxTableName)).filter((row) => row.status === 'QUARANTINED');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.quarantined_at).toBe(consumer.clock.nowMs() - 60_000);
  });

  it('fails the whole invocation with a clear error when the envelope has no records map', async () => {
    const consumer = orderConsumer(tables);
    const addMetric = vi.spyOn(consumer.metrics, 'addMetric');

    await expect(consumer.invoke({ eventSource: 'aws:kafka' })).rejects.toThrow(/no "records" map/);
    await expect(consumer.invoke('not an event')).rejects.toThrow(/must be an object/);
    expect(addMetric).toHaveBeenCalledWith('FailedBatches', 'Count', 1);
    expect(await tables.scan(tables.inboxTableName)).toEqual([]);
  });
});

describe('the Lambda entry module', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('reads its configuration from the environment and processes a batch', async () => {
    const tables = await createTestTables();
    Object.assign(process.env, {
      INBOX_TABLE_NAME: tables.inboxTableName,
      APP_TABLE_NAME: tables.appTableName,
      CONSUMER_NAME: 'entry-consumer',
      AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoDbEndpoint'),
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    });
    const { handler } = await import('../../../sample/order-consumer/handler.js');

    const response = await handler(
      kafkaEvent([orderRecord(1, { eventId: 'entry-1', accountId: 'entry-acct' })]),
      lambdaContext(new ManualClock(Date.now())),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await tables.get(tables.inboxTableName, 'entry-consumer#entry-1')).toMatchObject({
      status: 'COMPLETED',
    });
  });
});
