import { beforeEach, describe, expect, it } from 'vitest';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';

describe('order consumer against DynamoDB Local', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables();
  });

  const account = (id: string) => tables.get(tables.appTableName, `account#${id}`);
  const order = (id: string) => tables.get(tables.appTableName, `order#${id}`);

  it('applies the effect once and reports nothing when a batch is delivered for the first time', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([
      orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 250 }),
      orderRecord(11, { eventId: 'e2', orderId: 'o2', accountId: 'a1', amount: 100 }),
    ]);

    const response = await consumer.invoke(event);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await account('a1')).toMatchObject({ balance: -350 });
    expect(await order('o1')).toMatchObject({ total: 250, status: 'PLACED' });
    const row = await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'e1'));
    expect(row).toMatchObject({ status: 'COMPLETED', source: 'orders-0@10' });
    expect(row?.expires_at).toBe(Math.floor(consumer.clock.nowMs() / 1000) + 604_800);
    expect(consumer.lastSummary()?.counts.processed).toBe(2);
  });

  it('changes nothing and reports nothing when the same batch is redelivered', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([
      orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 250 }),
    ]);
    await consumer.invoke(event);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(await account('a1')).toMatchObject({ balance: -250 });
    expect(await order('o1')).toMatchObject({ total: 250 });
    expect(consumer.lastOutcomes().map((o) => o.status)).toEqual(['duplicate']);
  });

  it('acks a duplicate when the same event_id arrives at another offset', async () => {
    const consumer = orderConsumer(tables);
    await consumer.invoke(kafkaEvent([orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1' })]));

    const response = await consumer.invoke(
      kafkaEvent([orderRecord(42, { eventId: 'e1', orderId: 'o1', accountId: 'a1' }, 3)]),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastOutcomes()).toMatchObject([{ status: 'duplicate', coordinates: 'orders-3@42' }]);
    expect(await account('a1')).toMatchObject({ balance: -100 });
  });

  it('quarantines a payload conflict when the same event_id comes with another payload', async () => {
    const consumer = orderConsumer(tables);
    await consumer.invoke(
      kafkaEvent([orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 100 })]),
    );

    const response = await consumer.invoke(
      kafkaEvent([orderRecord(11, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 999 })]),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastOutcomes()).toMatchObject([{ status: 'quarantined', reason: 'payload-conflict' }]);
    expect(consumer.lastSummary()?.payloadConflicts).toBe(1);
    expect(await account('a1')).toMatchObject({ balance: -100 });
    const quarantined = await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@11`);
    expect(quarantined).toMatchObject({
      status: 'QUARANTINED',
      reason: 'payload-conflict',
      quarantine_consumer: CONSUMER,
    });
  });

  it('applies the event again when its inbox row has expired but TTL has not deleted it yet', async () => {
    const consumer = orderConsumer(tables, { settings: { dedupTtlSeconds: 3_600 } });
    const event = kafkaEvent([
      orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 100 }),
    ]);
    await consumer.invoke(event);
    consumer.clock.advance(3_601_000);
    expect(await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'e1'))).toBeDefined();

    await consumer.invoke(event);

    expect(consumer.lastOutcomes().map((o) => o.status)).toEqual(['processed']);
    expect(await account('a1')).toMatchObject({ balance: -200 });
  });

  it('collapses copies of one event_id across partitions of one batch into one effect', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([
      orderRecord(5, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 100 }, 0),
      orderRecord(7, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 100 }, 1),
      orderRecord(8, { eventId: 'e1', orderId: 'o1', accountId: 'a1', amount: 100 }, 1),
    ]);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(await account('a1')).toMatchObject({ balance: -100 });
    const statuses = consumer
      .lastOutcomes()
      .map((o) => o.status)
      .sort();
    expect(statuses).toEqual(['duplicate', 'duplicate', 'processed']);
  });
});
