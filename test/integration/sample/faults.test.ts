import { beforeEach, describe, expect, it } from 'vitest';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';
import {
  faultyClient,
  inboxKeyOf,
  serviceUnavailableError,
  throttlingError,
  transactionConflictError,
} from '../../support/sdk-faults.js';

describe('order consumer under DynamoDB faults and deadlines', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables();
  });

  const fourRecordsOnTwoPartitions = () =>
    kafkaEvent([
      orderRecord(10, { eventId: 'p0-a', accountId: 'a0' }, 0),
      orderRecord(11, { eventId: 'p0-b', accountId: 'a0' }, 0),
      orderRecord(12, { eventId: 'p0-c', accountId: 'a0' }, 0),
      orderRecord(20, { eventId: 'p1-a', accountId: 'a1' }, 1),
      orderRecord(21, { eventId: 'p1-b', accountId: 'a1' }, 1),
    ]);

  it('reports the throttled record and the rest of its partition, and processes other partitions', async () => {
    const throttledKey = dedupRowKey(CONSUMER, 'p0-b');
    const faulty = faultyClient((call) =>
      inboxKeyOf(call) === throttledKey ? throttlingError() : undefined,
    );
    const consumer = orderConsumer(tables, { dynamoDb: faulty.client });

    const response = await consumer.invoke(fourRecordsOnTwoPartitions());

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'orders-0', offset: 11 } },
      { itemIdentifier: { partition: 'orders-0', offset: 12 } },
    ]);
    // The SDK retried the throttled request itself before the record was reported.
    expect(faulty.attempts.filter((call) => inboxKeyOf(call) === throttledKey)).toHaveLength(2);
    expect(await tables.get(tables.appTableName, 'account#a0')).toMatchObject({ balance: -100 });
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -200 });
    expect(consumer.lastOutcomes().map((o) => [o.coordinates, o.status])).toEqual([
      ['orders-0@10', 'processed'],
      ['orders-0@11', 'failed'],
      ['orders-0@12', 'blocked'],
      ['orders-1@20', 'processed'],
      ['orders-1@21', 'processed'],
    ]);
  });

  it('reports every record and writes nothing when DynamoDB is down for the whole batch', async () => {
    const faulty = faultyClient(() => serviceUnavailableError());
    const consumer = orderConsumer(tables, { dynamoDb: faulty.client });

    const response = await consumer.invoke(fourRecordsOnTwoPartitions());

    expect(
      response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
    ).toEqual(['orders-0@10', 'orders-0@11', 'orders-0@12', 'orders-1@20', 'orders-1@21']);
    expect(await tables.scan(tables.appTableName)).toEqual([]);
    expect(await tables.scan(tables.inboxTableName)).toEqual([]);
  });

  it('applies the records exactly once when the batch is redelivered after the outage', async () => {
    let down = true;
    const faulty = faultyClient(() => (down ? serviceUnavailableError() : undefined));
    const consumer = orderConsumer(tables, { dynamoDb: faulty.client });
    await consumer.invoke(fourRecordsOnTwoPartitions());
    down = false;

    const response = await consumer.invoke(fourRecordsOnTwoPartitions());
    await consumer.invoke(fourRecordsOnTwoPartitions());

    expect(response.batchItemFailures).toEqual([]);
    expect(await tables.get(tables.appTableName, 'account#a0')).toMatchObject({ balance: -300 });
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -200 });
  });

  it('reports a record as failed when its transaction is cancelled by a conflicting transaction', async () => {
    const conflicted = dedupRowKey(CONSUMER, 'p1-a');
    const faulty = faultyClient((call) =>
      inboxKeyOf(call) === conflicted ? transactionConflictError(3, 1) : undefined,
    );
    const consumer = orderConsumer(tables, { dynamoDb: faulty.client });

    const response = await consumer.invoke(fourRecordsOnTwoPartitions());

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'orders-1', offset: 20 } },
      { itemIdentifier: { partition: 'orders-1', offset: 21 } },
    ]);
    expect(consumer.lastOutcomes().find((o) => o.coordinates === 'orders-1@20')).toMatchObject({
      status: 'failed',
      reason: 'transaction-conflict',
    });
  });

  it('reports unstarted records as deferred when the Lambda deadline is near', async () => {
    const consumer = orderConsumer(tables, { settings: { deadlineMarginMs: 5_000 } });

    const response = await consumer.invoke(fourRecordsOnTwoPartitions(), 4_000);

    expect(response.batchItemFailures).toHaveLength(5);
    expect(new Set(consumer.lastOutcomes().map((o) => o.status))).toEqual(new Set(['deferred']));
    expect(await tables.scan(tables.appTableName)).toEqual([]);
  });

  it('stops starting records once the remaining time falls under the margin mid-batch', async () => {
    const clock = new ManualClock();
    const faulty = faultyClient((call) => {
      // Each DynamoDB request "takes" 3 s of the invocation's time.
      if (inboxKeyOf(call)) clock.advance(3_000);
      return undefined;
    });
    const slowConsumer = orderConsumer(tables, {
      dynamoDb: faulty.client,
      clock,
      settings: { deadlineMarginMs: 5_000, partitionConcurrency: 1 },
    });

    const response = await slowConsumer.invoke(fourRecordsOnTwoPartitions(), 10_000);

    expect(slowConsumer.lastOutcomes().map((o) => o.status)).toEqual([
      'processed',
      'processed',
      'deferred',
      'deferred',
      'deferred',
    ]);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([12, 20, 21]);
  });
});
