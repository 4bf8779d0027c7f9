/**
 * No record can block its partition: one regression test per class of poison record a hostile producer
 * (or a broken envelope) can send, against DynamoDB Local. Each record must end acked (quarantined with
 * its raw record kept, or applied), the records after it must be applied, and the invocation must not throw.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../../lambdas/core/dedup-key.js';
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import { INBOX_ATTRIBUTES, INBOX_STATUS, quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createKafkaBatchHandler } from '../../../lambdas/core/kafka-batch-handler.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { MAX_REJECTIONS_WITHOUT_SUCCESS } from '../../../lambdas/core/store-failure.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { dynamoDbStore } from '../../support/inbox-store.js';
import { kafkaEvent, kafkaRecord, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';
import { faultyClient, throttlingError } from '../../support/sdk-faults.js';

let tables: TestTables;

// Tables of its own per test: the records of different tests share coordinates.
beforeEach(async () => {
  tables = await createTestTables();
});

/** DynamoDB's item limit: a quarantine row must stay under it whatever the record. */
const ITEM_LIMIT_BYTES = 400 * 1024;

/** A record's size as DynamoDB counts it, near enough: attribute names plus UTF-8 values. */
function itemBytes(item: unknown): number {
  return Buffer.byteLength(JSON.stringify(item), 'utf8');
}

async function quarantineRow(key: string | undefined): Promise<Record<string, unknown>> {
  expect(key).toBeDefined();
  const row = await tables.get(tables.inboxTableName, quarantineRowKey(CONSUMER, key as string));
  expect(row?.[INBOX_ATTRIBUTES.status]).toBe(INBOX_STATUS.quarantined);
  return row as Record<string, unknown>;
}

function statuses(outcomes: readonly RecordOutcome[]): string[] {
  return outcomes.map((o) => `${o.coordinates} ${o.status}${o.reason ? ` ${o.reason}` : ''}`);
}

/**
 * The engine with a DynamoDB store and an effect of the test's own, for effects the sample has not; on a
 * client with injected faults when given one.
 */
function engineWith(effect: Effect, dynamoDb?: DynamoDBClient) {
  const clock = new ManualClock();
  let outcomes: readonly RecordOutcome[] = [];
  const store =
    dynamoDb === undefined
      ? dynamoDbStore(tables, clock)
      : new DynamoDbInboxStore({
          client: DynamoDBDocumentClient.from(dynamoDb),
          tableName: tables.inboxTableName,
          consumer: CONSUMER,
          ttlSeconds: 604_800,
          clock,
        });
  const handle = createKafkaBatchHandler({
    store,
    effect,
    dedupKeyPolicy: DEFAULT_DEDUP_KEY_POLICY,
    clock,
    deadlineMarginMs: 1_000,
    leaseMarginMs: 1_000,
    partitionConcurrency: 4,
    telemetry: {
      batchProcessed: (_summary, batch) => {
        outcomes = batch;
      },
    },
  });
  return {
    invoke: (event: unknown) => handle(event, lambdaContext(clock, 60_000)),
    outcomes: () => outcomes,
  };
}

describe('class 1: DynamoDB limits hit by the record content', () => {
  it("quarantines a record whose effect writes a key over 2,048 bytes, with DynamoDB's message, and applies the next one", async () => {
    // The key comes from the record: a producer decides its length.
    const engine = engineWith(({ record }) => ({
      kind: 'transact',
      writes: [
        {
          Update: {
            TableName: tables.appTableName,
            Key: { pk: `account#${record.value?.toString()}` },
            UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          },
        },
      ],
    }));
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'c1-long-key' }, value: 'a'.repeat(3_000) },
      { offset: 2, headers: { event_id: 'c1-after' }, value: 'c1-acct' },
    ]);

    const response = await engine.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(engine.outcomes())).toEqual([
      'orders-0@1 quarantined dynamodb-rejected',
      'orders-0@2 processed',
    ]);
    const row = await quarantineRow(engine.outcomes()[0]?.quarantineKey);
    expect(row[INBOX_ATTRIBUTES.error]).toMatch(/2048 bytes/);
    expect((await tables.get(tables.appTableName, 'account#c1-acct'))?.n).toBe(1);
  });

  it('quarantines an order whose ids a key cannot hold before any write (the sample validates them)', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([orderRecord(1, { eventId: 'c1-long-id', accountId: 'a'.repeat(3_000) })]);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(consumer.lastOutcomes())).toEqual(['orders-0@1 quarantined invalid-event']);
  });

  it('quarantines a record whose effect writes an item over 400 KB', async () => {
    const engine = engineWith(({ record }) => ({
      kind: 'transact',
      writes: [
        {
          Put: {
            TableName: tables.appTableName,
            Item: { pk: `note#${record.offset}`, note: record.value?.toString('base64') },
          },
        },
      ],
    }));
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'c1-big-item' }, value: 'x'.repeat(450_000) },
      { offset: 2, headers: { event_id: 'c1-small-item' }, value: 'small' },
    ]);

    const response = await engine.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(engine.outcomes())).toEqual([
      'orders-0@1 quarantined dynamodb-rejected',
      'orders-0@2 processed',
    ]);
    expect(engine.outcomes()[0]?.detail).toMatch(/Item size/);
  });

  it('keeps a quarantine row under 400 KB when its fields are multi-byte text, naming what was cut', async () => {
    const consumer = orderConsumer(tables);
    const euro = '€'.repeat(200_000); // 200,000 characters, 600,000 UTF-8 bytes
    const record = {
      ...kafkaRecord({ offset: 7 }),
      topic: euro,
      timestampType: euro,
      key: euro, // not base64: undecodable
      value: Buffer.from('y'.repeat(400_000)).toString('base64'),
      headers: [{ event_id: Array.from(Buffer.from(euro).subarray(0, 100_000)) }, { [euro]: [1] }],
    };

    const response = await consumer.invoke({ eventSource: 'aws:kafka', records: { 'orders-0': [record] } });

    expect(response.batchItemFailures).toEqual([]);
    const row = await quarantineRow(consumer.lastOutcomes()[0]?.quarantineKey);
    expect(itemBytes(row)).toBeLessThan(ITEM_LIMIT_BYTES);
    const kept = row[INBOX_ATTRIBUTES.record] as Record<string, unknown>;
    expect(kept.cut).toEqual(['topic', 'timestampType', 'key', 'value', 'headers']);
    expect(kept.value_truncated).toBe(true);
  });
});

describe('class 2: size and depth that break a decoder', () => {
  it('quarantines a 4.2 MB value (5.6 MB of base64) that is not JSON without a stack overflow, and applies the next record', async () => {
    const consumer = orderConsumer(tables);
    const event = kafkaEvent([
      // Near the ESM's 6 MB batch: a regular expression with a repeated group overflows V8's stack here.
      { offset: 1, headers: { event_id: 'c2-huge' }, value: 'z'.repeat(4_200_000) },
      orderRecord(2, { eventId: 'c2-after' }),
    ]);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(consumer.lastOutcomes())).toEqual([
      'orders-0@1 quarantined invalid-event',
      'orders-0@2 processed',
    ]);
  });

  it('quarantines a 5.6 MB value that is not base64 as undecodable', async () => {
    const consumer = orderConsumer(tables);
    const record = { ...kafkaRecord({ offset: 1 }), value: `${'QUJD'.repeat(1_400_000)}!` };

    const response = await consumer.invoke({ eventSource: 'aws:kafka', records: { 'orders-0': [record] } });

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(consumer.lastOutcomes())).toEqual(['orders-0@1 quarantined undecodable']);
  });

  it('quarantines a record with headers nested 100,000 deep and keeps a bounded copy of them', async () => {
    const consumer = orderConsumer(tables);
    const depth = 100_000;
    // Parsed from JSON text, as Lambda's runtime hands the event over.
    const headers = JSON.parse(`[{"h":${'['.repeat(depth)}${']'.repeat(depth)}}]`);
    const record = { ...kafkaRecord({ offset: 1 }), headers };

    const response = await consumer.invoke({ eventSource: 'aws:kafka', records: { 'orders-0': [record] } });

    expect(response.batchItemFailures).toEqual([]);
    const row = await quarantineRow(consumer.lastOutcomes()[0]?.quarantineKey);
    const kept = row[INBOX_ATTRIBUTES.record] as Record<string, unknown>;
    expect(String(kept.headers)).toMatch(/^\[\{"h":\[\[\[/);
    expect(kept.cut).toEqual(['headers']);
  });
});

describe('class 3: malformed coordinates', () => {
  it('quarantines two records without a usable offset, in two batches at the same position, in two rows', async () => {
    const consumer = orderConsumer(tables);
    const first = { ...kafkaRecord({ offset: 0, value: 'first raw record' }), offset: '12abc' };
    const second = { ...kafkaRecord({ offset: 0, value: 'second raw record' }), offset: -1 };

    await consumer.invoke({ eventSource: 'aws:kafka', records: { 'orders-0': [first] } });
    const firstKey = consumer.lastOutcomes()[0]?.quarantineKey;
    await consumer.invoke({ eventSource: 'aws:kafka', records: { 'orders-0': [second] } });
    const secondKey = consumer.lastOutcomes()[0]?.quarantineKey;

    expect(firstKey).not.toBe(secondKey);
    const rows = [await quarantineRow(firstKey), await quarantineRow(secondKey)];
    expect(rows.map((row) => (row[INBOX_ATTRIBUTES.record] as Record<string, unknown>).value)).toEqual([
      first.value,
      second.value,
    ]);
    expect(
      rows.map((row) => (row[INBOX_ATTRIBUTES.record] as Record<string, unknown>).offset_as_sent),
    ).toEqual(['12abc', '-1']);
  });

  it('names the nearest earlier record for an offset-less record that must be retried, instead of failing the invocation', async () => {
    // The effect fails (a transient fault) for the records whose value says so, and DynamoDB throttles
    // the quarantine row of an offset-less record in partition 1.
    const throttled = faultyClient((call) => {
      const pk = (call.input.Item as { pk?: { S?: string } } | undefined)?.pk?.S ?? '';
      return pk.includes('orders-1#raw-') ? throttlingError() : undefined;
    });
    const engine = engineWith(({ record }) => {
      if (record.value?.toString() === 'fail') throw new Error('downstream timeout');
      return { kind: 'transact', writes: [] };
    }, throttled.client);
    const offsetless = (value: string, partition: number) => ({
      ...kafkaRecord({ offset: 0, partition, value, headers: { event_id: value } }),
      offset: null,
    });
    const event = {
      eventSource: 'aws:kafka',
      records: {
        // Blocked behind a failed record: covered by it.
        'orders-0': [
          kafkaRecord({ offset: 5, value: 'fail', headers: { event_id: 'c3-a' } }),
          offsetless('c3-b', 0),
        ],
        // Failed itself: the processed record before it is named, and its redelivery is a duplicate.
        'orders-1': [
          kafkaRecord({ offset: 4, partition: 1, value: 'ok', headers: { event_id: 'c3-c' } }),
          offsetless('c3-d', 1),
        ],
      },
    };

    const response = await engine.invoke(event);

    expect(engine.outcomes().map((o) => o.status)).toEqual(['failed', 'blocked', 'processed', 'failed']);
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'orders-0', offset: 5 } },
      { itemIdentifier: { partition: 'orders-1', offset: 4 } },
    ]);
  });
});

describe('class 4: ill-formed event ids from the JSON body', () => {
  it('quarantines body ids with lone surrogates as invalid-event-id, as from the header, so two never collapse into one', async () => {
    const consumer = orderConsumer(tables);
    const body = (id: string) =>
      `{"event_id":"${id}","type":"OrderPlaced","order_id":"o-${id}","account_id":"a","amount":5}`;
    const event = kafkaEvent([
      { offset: 1, value: body('evt-\\ud800') },
      { offset: 2, value: body('evt-\\udc00') },
    ]);

    const response = await consumer.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(statuses(consumer.lastOutcomes())).toEqual([
      'orders-0@1 quarantined invalid-event-id',
      'orders-0@2 quarantined invalid-event-id',
    ]);
  });
});

describe('systemic refusals', () => {
  it(`quarantines at most ${MAX_REJECTIONS_WITHOUT_SUCCESS} records refused the same way when none is applied, and reports the rest`, async () => {
    // Every record's write is impossible: a deploy bug, not a poison record.
    const engine = engineWith(() => ({
      kind: 'transact',
      writes: [{ Put: { TableName: tables.appTableName, Item: { pk: '' } } }],
    }));
    const event = kafkaEvent(
      Array.from({ length: 6 }, (_, index) => ({
        offset: index,
        headers: { event_id: `sys-${index}` },
        value: 'v',
      })),
    );

    const response = await engine.invoke(event);

    expect(engine.outcomes().map((o) => o.status)).toEqual([
      'quarantined',
      'quarantined',
      'quarantined',
      'failed',
      'blocked',
      'blocked',
    ]);
    expect(engine.outcomes()[3]?.reason).toBe('systemic-store-error');
    expect(response.batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([3, 4, 5]);

    // Lambda retries from offset 3, again and again: nothing more is quarantined.
    const retry = kafkaEvent(
      Array.from({ length: 3 }, (_, index) => ({
        offset: index + 3,
        headers: { event_id: `sys-${index + 3}` },
        value: 'v',
      })),
    );
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await engine.invoke(retry);
      expect(engine.outcomes().map((o) => o.status)).toEqual(['failed', 'blocked', 'blocked']);
    }
    // A full redelivery finds the first three quarantined already, and still quarantines no other.
    await engine.invoke(event);
    expect(engine.outcomes().map((o) => o.status)).toEqual([
      'quarantined',
      'quarantined',
      'quarantined',
      'failed',
      'blocked',
      'blocked',
    ]);
  });

  it('quarantines a flood of refused records when records between them are applied', async () => {
    // Odd offsets carry a key DynamoDB refuses; even ones are fine.
    const engine = engineWith(({ record }) => ({
      kind: 'transact',
      writes: [{ Put: { TableName: tables.appTableName, Item: { pk: `item#${record.value?.toString()}` } } }],
    }));
    const event = kafkaEvent(
      Array.from({ length: 12 }, (_, index) => ({
        offset: index,
        headers: { event_id: `flood-${index}` },
        value: index % 2 === 1 ? 'k'.repeat(3_000) : `fine-${index}`,
      })),
    );

    const response = await engine.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(engine.outcomes().filter((o) => o.status === 'quarantined')).toHaveLength(6);
  });

  it('quarantines later copies of a quarantined event without another try at DynamoDB', async () => {
    const attempts: string[] = [];
    const engine = engineWith(({ record }) => {
      attempts.push(record.coordinates);
      return {
        kind: 'transact',
        writes: [{ Put: { TableName: tables.appTableName, Item: { pk: 'k'.repeat(3_000) } } }],
      };
    });
    const copies = Array.from({ length: 5 }, (_, index) => ({
      offset: index,
      headers: { event_id: 'copied' },
      value: 'same',
    }));

    const response = await engine.invoke(kafkaEvent(copies));

    expect(response.batchItemFailures).toEqual([]);
    expect(engine.outcomes().map((o) => o.status)).toEqual(Array(5).fill('quarantined'));
    expect(attempts).toEqual(['orders-0@0']);
  });

  it('reports, never quarantines, every record when the table is missing', async () => {
    const consumer = orderConsumer({ ...tables, appTableName: 'no-such-table' });
    const event = kafkaEvent([
      orderRecord(1, { eventId: 'sys-missing-1' }),
      orderRecord(2, { eventId: 'sys-missing-2' }),
    ]);

    const response = await consumer.invoke(event);

    expect(consumer.lastOutcomes().map((o) => `${o.status} ${o.reason}`)).toEqual([
      'failed systemic-store-error',
      'blocked not-started',
    ]);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([1, 2]);
  });
});
