/**
 * Events an effect emits commit with its inbox row, on DynamoDB Local: appended to their key's queue row
 * in offset order, never twice for a redelivery, refused (quarantined) when malformed, and held back
 * (reported, retried) while the key's queue row is full.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import type { EffectPlan } from '../../../lambdas/core/effect.js';
import type { KafkaBatchResponse } from '../../../lambdas/core/kafka-event.js';
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import { OUTBOX_LIMITS, outboxQueueKey } from '../../../lambdas/core/outbox-rows.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { createOutboxTable } from '../../../local/dynamodb-local/tables.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';

const CONSUMER = 'payments-requester';

/** An order record: `emits` says what its effect emits (one PaymentRequested per listed key by default). */
function order(
  offset: number,
  eventId: string,
  account: string,
  extra: Record<string, unknown> = {},
): RecordSpec {
  return {
    topic: 'orders',
    partition: 0,
    offset,
    key: account,
    headers: { event_id: eventId },
    value: { event_id: eventId, account, amount: 10 + offset, ...extra },
  };
}

describe('an effect that emits, on DynamoDB Local', () => {
  let tables: TestTables;
  let outboxTableName: string;
  beforeEach(async () => {
    tables = await createTestTables();
    outboxTableName = `outbox-${randomUUID().slice(0, 8)}`;
    await createOutboxTable(tables.client, outboxTableName);
  });

  function consumer(options: { outbox?: boolean; groupMax?: number } = {}) {
    const clock = new ManualClock();
    let outcomes: readonly RecordOutcome[] = [];
    const handler = createObservedInboxConsumer(
      {
        settings: {
          inboxTableName: tables.inboxTableName,
          consumerName: CONSUMER,
          transactGroupMaxRecords: options.groupMax ?? 100,
          ...(options.outbox === false ? {} : { outboxTableName }),
        },
        dynamoDb: tables.client,
        logger: new Logger({ serviceName: CONSUMER, logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'MskInboxTest', serviceName: CONSUMER }),
        effect: ({ event }): EffectPlan => {
          const value = event as { account: string; amount: number; topic?: string };
          return {
            kind: 'transact',
            writes: [
              {
                Update: {
                  TableName: tables.appTableName,
                  Key: { pk: `account#${value.account}` },
                  UpdateExpression: 'ADD #balance :amount',
                  ExpressionAttributeNames: { '#balance': 'balance' },
                  ExpressionAttributeValues: { ':amount': value.amount },
                },
              },
            ],
            emit: [
              {
                topic: value.topic ?? 'payments',
                key: value.account,
                value: JSON.stringify({ type: 'PaymentRequested', amount: value.amount }),
                headers: { type: 'PaymentRequested' },
              },
            ],
          };
        },
      },
      { clock, observe: { batchProcessed: (_, batchOutcomes) => (outcomes = batchOutcomes) } },
    );
    return {
      invoke: (records: readonly RecordSpec[]) =>
        handler(kafkaEvent(records), lambdaContext(clock, 60_000)) as Promise<KafkaBatchResponse>,
      outcomes: () => outcomes,
    };
  }

  const queueRow = (account: string) =>
    tables.get(outboxTableName, outboxQueueKey(CONSUMER, 'payments', account));
  const eventIds = async (account: string) =>
    (((await queueRow(account))?.events as { id: string }[] | undefined) ?? []).map((event) => event.id);

  it("appends each record's events to its key's queue row in offset order, once, grouped commits included", async () => {
    const payments = consumer();
    const records = [order(1, 'e1', 'a'), order(2, 'e2', 'b'), order(3, 'e3', 'a'), order(4, 'e4', 'a')];

    expect((await payments.invoke(records)).batchItemFailures).toEqual([]);
    // A redelivery of the whole batch: every record a duplicate, nothing appended again.
    expect((await payments.invoke(records)).batchItemFailures).toEqual([]);

    expect(payments.outcomes().map((outcome) => outcome.status)).toEqual(Array(4).fill('duplicate'));
    expect(await eventIds('a')).toEqual(['e1', 'e3', 'e4'].map((key) => outboxEventId(CONSUMER, key, 0)));
    expect(await eventIds('b')).toEqual([outboxEventId(CONSUMER, 'e2', 0)]);
    const row = await queueRow('a');
    expect(row).toMatchObject({
      consumer: CONSUMER,
      topic: 'payments',
      kafka_key: 'a',
      change: 'appended',
      events: [{ headers: { type: 'PaymentRequested' }, source: 'e1' }, { source: 'e3' }, { source: 'e4' }],
    });
    expect(row?.pending_bytes).toBeGreaterThan(0);
    expect((await tables.get(tables.appTableName, 'account#a'))?.balance).toBe(11 + 13 + 14);
  });

  it('quarantines a record whose event cannot be appended, writing neither its effect nor any event', async () => {
    const payments = consumer();

    const response = await payments.invoke([
      order(1, 'e1', 'a', { topic: 'no spaces allowed' }),
      order(2, 'e2', 'a'),
    ]);

    expect(response.batchItemFailures).toEqual([]);
    expect(payments.outcomes()[0]).toMatchObject({ status: 'quarantined', reason: 'outbox-event-invalid' });
    expect(payments.outcomes()[1]).toMatchObject({ status: 'processed' });
    expect(await eventIds('a')).toEqual([outboxEventId(CONSUMER, 'e2', 0)]);
    expect((await tables.get(tables.appTableName, 'account#a'))?.balance).toBe(12);
  });

  it.each([
    ['in a group commit', 100],
    ['committed alone', 1],
  ])(
    "reports a record while its key's queue row is full, and the partition's later records with it (%s)",
    async (_, groupMax) => {
      await tables.documentClient.send(
        new PutCommand({
          TableName: outboxTableName,
          Item: {
            pk: outboxQueueKey(CONSUMER, 'payments', 'a'),
            events: [],
            pending_bytes: OUTBOX_LIMITS.pendingBytes - 10,
          },
        }),
      );
      const payments = consumer({ groupMax });

      const response = await payments.invoke([order(1, 'e1', 'b'), order(2, 'e2', 'a'), order(3, 'e3', 'b')]);

      expect(response.batchItemFailures.map((failure) => failure.itemIdentifier.offset)).toEqual([2, 3]);
      expect(payments.outcomes()[1]).toMatchObject({ status: 'failed', reason: 'outbox-backlog' });
      expect(await eventIds('b')).toEqual([outboxEventId(CONSUMER, 'e1', 0)]);
      expect(await tables.get(tables.appTableName, 'account#a')).toBeUndefined();
    },
  );

  it('reports (never quarantines) records that emit when the consumer has no outbox', async () => {
    const payments = consumer({ outbox: false });

    const response = await payments.invoke([order(1, 'e1', 'a')]);

    expect(response.batchItemFailures).toHaveLength(1);
    expect(payments.outcomes()[0]).toMatchObject({
      status: 'failed',
      reason: 'systemic-store-error',
      detail: expect.stringContaining('OUTBOX_TABLE_NAME is not set'),
    });
  });
});
