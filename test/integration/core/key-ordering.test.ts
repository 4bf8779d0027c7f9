import { beforeEach, describe, expect, it } from 'vitest';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';
import { faultyClient, inboxKeyOf, throttlingError } from '../../support/sdk-faults.js';

describe('ORDERING=key against DynamoDB Local', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables();
  });

  /** One partition, three accounts (the Kafka key is the account), four records each. */
  const oneBusyPartition = () =>
    kafkaEvent(
      Array.from({ length: 12 }, (_, index) => {
        const account = `a${index % 3}`;
        return {
          ...orderRecord(100 + index, { eventId: `e${index}`, accountId: account, amount: 10 + index }),
          key: account,
        };
      }),
    );
  const balanceOf = async (account: string) =>
    (await tables.get(tables.appTableName, `account#${account}`))?.balance;

  it('applies every record once with the keys of one partition running concurrently', async () => {
    const consumer = orderConsumer(tables, { settings: { ordering: 'key', keyConcurrency: 3 } });

    const response = await consumer.invoke(oneBusyPartition());

    expect(response.batchItemFailures).toEqual([]);
    expect(consumer.lastSummary()?.counts.processed).toBe(12);
    expect(await balanceOf('a0')).toBe(-(10 + 13 + 16 + 19));
    expect(await balanceOf('a1')).toBe(-(11 + 14 + 17 + 20));
  });

  it('reports every record from a failed one on, and a redelivery from there applies each exactly once', async () => {
    const throttled = dedupRowKey(CONSUMER, 'e4');
    let outage = true;
    const faulty = faultyClient((call) =>
      outage && inboxKeyOf(call) === throttled ? throttlingError() : undefined,
    );
    const consumer = orderConsumer(tables, {
      dynamoDb: faulty.client,
      settings: { ordering: 'key', keyConcurrency: 3 },
    });
    const event = oneBusyPartition();

    const response = await consumer.invoke(event);

    const reported = response.batchItemFailures.map((failure) => failure.itemIdentifier.offset);
    expect(reported).toEqual([104, 105, 106, 107, 108, 109, 110, 111]);
    expect(consumer.lastOutcomes().find((o) => o.offset === 104)).toMatchObject({ status: 'failed' });
    // Records before the failure were applied, whatever their key.
    expect(
      consumer
        .lastOutcomes()
        .slice(0, 4)
        .map((o) => o.status),
    ).toEqual(Array(4).fill('processed'));

    // Lambda commits up to offset 104 and redelivers everything from it.
    outage = false;
    const redelivered = {
      ...event,
      records: { 'orders-0': (event.records['orders-0'] ?? []).filter((record) => record.offset >= 104) },
    };
    const retry = await consumer.invoke(redelivered);

    expect(retry.batchItemFailures).toEqual([]);
    expect(await balanceOf('a0')).toBe(-(10 + 13 + 16 + 19));
    expect(await balanceOf('a1')).toBe(-(11 + 14 + 17 + 20));
    expect(await balanceOf('a2')).toBe(-(12 + 15 + 18 + 21));
  });
});
