import { beforeEach, describe, expect, it } from 'vitest';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';
import { faultyClient } from '../../support/sdk-faults.js';

describe('the completed-key cache of one container, against DynamoDB Local', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables();
  });

  /** A client that fails nothing and counts every request the SDK sends. */
  const countingClient = () => faultyClient(() => undefined);

  it('acks a redelivered duplicate without a single DynamoDB request', async () => {
    const counting = countingClient();
    const consumer = orderConsumer(tables, { dynamoDb: counting.client });
    const event = kafkaEvent([
      orderRecord(10, { eventId: 'e1', orderId: 'o1', accountId: 'a1' }),
      orderRecord(11, { eventId: 'e2', orderId: 'o2', accountId: 'a1' }),
    ]);
    await consumer.invoke(event);
    expect(counting.attempts).toHaveLength(2);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastOutcomes().map((o) => [o.status, o.reason])).toEqual([
      ['duplicate', 'completed'],
      ['duplicate', 'completed'],
    ]);
    expect(counting.attempts).toHaveLength(2);
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -200 });
  });

  it('still asks DynamoDB for a cached key with another payload, and quarantines the conflict', async () => {
    const counting = countingClient();
    const consumer = orderConsumer(tables, { dynamoDb: counting.client });
    await consumer.invoke(kafkaEvent([orderRecord(10, { eventId: 'e1', accountId: 'a1', amount: 100 })]));

    const response = await consumer.invoke(
      kafkaEvent([orderRecord(11, { eventId: 'e1', accountId: 'a1', amount: 999 })]),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastOutcomes()).toMatchObject([{ status: 'quarantined', reason: 'payload-conflict' }]);
    // The refused transaction, then the quarantine row.
    expect(counting.attempts.slice(1).map((call) => call.commandName)).toEqual([
      'TransactWriteItemsCommand',
      'PutItemCommand',
    ]);
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -100 });
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@11`)).toMatchObject({
      reason: 'payload-conflict',
    });
  });

  it('asks DynamoDB again for a key evicted by COMPLETED_KEY_CACHE_SIZE, which still finds the duplicate', async () => {
    const counting = countingClient();
    const consumer = orderConsumer(tables, {
      dynamoDb: counting.client,
      settings: { completedKeyCacheSize: 1 },
    });
    const first = kafkaEvent([orderRecord(10, { eventId: 'e1', accountId: 'a1' })]);
    await consumer.invoke(first);
    await consumer.invoke(kafkaEvent([orderRecord(11, { eventId: 'e2', accountId: 'a1' })]));

    await consumer.invoke(first);

    expect(counting.attempts).toHaveLength(3);
    expect(consumer.lastOutcomes()).toMatchObject([{ status: 'duplicate', reason: 'completed' }]);
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -200 });
  });

  it('costs a request per duplicate in another container: the table stays the truth', async () => {
    const event = kafkaEvent([orderRecord(10, { eventId: 'e1', accountId: 'a1' })]);
    await orderConsumer(tables).invoke(event);
    const counting = countingClient();
    const otherContainer = orderConsumer(tables, { dynamoDb: counting.client });

    await otherContainer.invoke(event);

    expect(otherContainer.lastOutcomes()).toMatchObject([{ status: 'duplicate' }]);
    expect(counting.attempts).toHaveLength(1);
  });
});
