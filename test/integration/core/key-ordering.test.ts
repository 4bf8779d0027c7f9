import { beforeEach, describe, expect, it } from 'vitest';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';
import { faultyClient, inboxKeyOf, type SdkCall, throttlingError } from '../../support/sdk-faults.js';

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
      // One record per request, so the throttled request is e4's alone (grouped: the test below).
      settings: { ordering: 'key', keyConcurrency: 3, transactGroupMaxRecords: 1 },
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

  describe('with group commit across keys (TRANSACT_GROUP_MAX_RECORDS > 1)', () => {
    /** A record of partition 0 whose Kafka key is its account. */
    const keyed = (offset: number, eventId: string, accountId: string, orderId: string, amount: number) => ({
      ...orderRecord(offset, { eventId, accountId, orderId, amount }),
      key: accountId,
    });
    /** The number of actions of each TransactWriteItems attempt. */
    const transactionSizes = (attempts: readonly SdkCall[]) =>
      attempts
        .filter((call) => call.commandName === 'TransactWriteItemsCommand')
        .map((call) => ((call.input.TransactItems ?? []) as unknown[]).length);
    const grouped = { ordering: 'key', keyConcurrency: 3, transactGroupMaxRecords: 100 } as const;

    it('commits the heads of several keys in one transaction, and keeps two keys that write one item apart', async () => {
      const counted = faultyClient(() => undefined);
      const consumer = orderConsumer(tables, { dynamoDb: counted.client, settings: grouped });

      const response = await consumer.invoke(
        kafkaEvent([
          keyed(100, 'e0', 'a', 'o0', 10),
          keyed(101, 'e1', 'b', 'o1', 11),
          // Two accounts, one order item: DynamoDB refuses a transaction with two actions on one item.
          keyed(102, 'e2', 'c', 'shared', 12),
          keyed(103, 'e3', 'd', 'shared', 13),
          keyed(104, 'e4', 'a', 'o4', 14),
          keyed(105, 'e5', 'e', 'o5', 15),
        ]),
      );

      expect(response.batchItemFailures).toEqual([]);
      expect(consumer.lastSummary()?.counts.processed).toBe(6);
      // The heads of a, b, c and e; then d (after c's transaction, which held the shared item) with a's next.
      expect(transactionSizes(counted.attempts)).toEqual([12, 6]);
      expect(await balanceOf('a')).toBe(-(10 + 14));
      expect((await tables.get(tables.appTableName, 'order#shared'))?.total).toBe(12 + 13);
    });

    it('reports every record of a throttled shared transaction and after it; a redelivery applies each once', async () => {
      const throttled = dedupRowKey(CONSUMER, 'e4');
      let outage = true;
      const inboxKeysOf = (call: { input: Record<string, unknown> }) =>
        ((call.input.TransactItems ?? []) as { Put?: { Item?: { pk?: { S?: string } } } }[]).map(
          (item) => item.Put?.Item?.pk?.S,
        );
      const faulty = faultyClient((call) =>
        outage && inboxKeysOf(call).includes(throttled) ? throttlingError() : undefined,
      );
      const consumer = orderConsumer(tables, { dynamoDb: faulty.client, settings: grouped });
      const event = oneBusyPartition();

      const response = await consumer.invoke(event);

      // The heads of a0, a1 and a2 go together: e4 (offset 104) shares its transaction with 103 and 105.
      const reported = response.batchItemFailures.map((failure) => failure.itemIdentifier.offset);
      expect(reported).toEqual([103, 104, 105, 106, 107, 108, 109, 110, 111]);
      expect(consumer.lastOutcomes().map((o) => o.status)).toEqual([
        ...Array(3).fill('processed'),
        ...Array(3).fill('failed'),
        ...Array(6).fill('blocked'),
      ]);

      outage = false;
      const retry = await consumer.invoke({
        ...event,
        records: { 'orders-0': (event.records['orders-0'] ?? []).filter((record) => record.offset >= 103) },
      });

      expect(retry.batchItemFailures).toEqual([]);
      expect(await balanceOf('a0')).toBe(-(10 + 13 + 16 + 19));
      expect(await balanceOf('a1')).toBe(-(11 + 14 + 17 + 20));
      expect(await balanceOf('a2')).toBe(-(12 + 15 + 18 + 21));
    });

    it('settles a member DynamoDB cancels on its own, and commits the other keys in one more request', async () => {
      await orderConsumer(tables).invoke(kafkaEvent([keyed(1, 'taken', 'b', 'o-taken', 5)]));
      const counted = faultyClient(() => undefined);
      const consumer = orderConsumer(tables, { dynamoDb: counted.client, settings: grouped });

      const response = await consumer.invoke(
        kafkaEvent([
          keyed(100, 'e0', 'a', 'o0', 10),
          // The same event id with another payload: its inbox condition fails.
          keyed(101, 'taken', 'b', 'o-taken', 6),
          keyed(102, 'e2', 'c', 'o2', 12),
        ]),
      );

      expect(response.batchItemFailures).toEqual([]);
      expect(consumer.lastOutcomes().map((o) => [o.offset, o.status, o.reason])).toEqual([
        [100, 'processed', undefined],
        [101, 'quarantined', 'payload-conflict'],
        [102, 'processed', undefined],
      ]);
      // The cancelled transaction of three, then the two blameless members again.
      expect(transactionSizes(counted.attempts)).toEqual([9, 6]);
      expect(await balanceOf('a')).toBe(-10);
      expect(await balanceOf('b')).toBe(-5);
      expect(await balanceOf('c')).toBe(-12);
    });
  });
});
