/**
 * The hostile-encodings property, run in a process of its own with a small heap
 * (test/property/hostile-encodings.test.ts starts it), so a value that exhausts memory kills this process
 * and fails the test instead of taking the test runner down.
 *
 * Each case is one partition: a valid order, one to four hostile values of the format (hostile-orders.ts,
 * mutated as hostile-encodings.ts draws), another valid order; delivered twice to the order consumer
 * on DynamoDB Local (local/poison/order-consumer-under-test.ts). It must keep the poison promise
 * (local/poison/poison-promise.ts), apply both valid orders exactly once, and quarantine every value the
 * format cannot decode as `undecodable` with the format's bounded reason.
 *
 * Usage: node --max-old-space-size=MB --import tsx hostile-encodings-child.ts <format> <runs> <seed>, with
 * MSK_INBOX_DYNAMODB_ENDPOINT set. Prints one JSON line (HostileRunSummary); exits 1 on a counterexample.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import type { RecordOutcome } from '../../lambdas/core/outcome.js';
import { QUARANTINE_LIMITS } from '../../lambdas/core/quarantine-row.js';
import { localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { createAppTable, createInboxTable } from '../../local/dynamodb-local/tables.js';
import { orderConsumerUnderTest } from '../../local/poison/order-consumer-under-test.js';
import { checkPoisonPromise } from '../../local/poison/poison-promise.js';
import { ORDER_PLACED, type OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import { type Mutation, render } from './hostile-encodings.js';
import { HOSTILE_FORMATS, orderShape } from './hostile-orders.js';
import { kafkaEvent } from './kafka-events.js';

export interface HostileRunSummary {
  readonly format: string;
  readonly cases: number;
  readonly hostileValues: number;
  readonly undecodable: number;
  /** Hostile values the format decoded (mutations that left a valid encoding within the budget). */
  readonly decoded: number;
  readonly mutations: Readonly<Record<Mutation['kind'], number>>;
  readonly largestValueBytes: number;
  readonly peakHeapMb: number;
}

const [formatName, runsText, seedText] = process.argv.slice(2);
const format = HOSTILE_FORMATS.find((candidate) => candidate.name === formatName);
const endpoint = process.env.MSK_INBOX_DYNAMODB_ENDPOINT;
if (format === undefined || endpoint === undefined || runsText === undefined || seedText === undefined) {
  console.error(
    'usage: hostile-encodings-child.ts <avro|protobuf|json> <runs> <seed>, with MSK_INBOX_DYNAMODB_ENDPOINT',
  );
  process.exit(2);
}

const client = localDynamoDbClient(endpoint);
const run = randomUUID().slice(0, 8);
const tables = { client, inboxTableName: `hostile-inbox-${run}`, appTableName: `hostile-app-${run}` };
await Promise.all([
  createInboxTable(client, tables.inboxTableName),
  createAppTable(client, tables.appTableName),
]);

const summary = {
  format: format.name,
  cases: 0,
  hostileValues: 0,
  undecodable: 0,
  decoded: 0,
  mutations: { claim: 0, overlong: 0, cut: 0, splice: 0, none: 0 },
  largestValueBytes: 0,
  peakHeapMb: 0,
};

const order = (id: string, amount: number): OrderPlaced => ({
  event_id: `evt-${id}`,
  type: ORDER_PLACED,
  order_id: `ord-${id}`,
  account_id: `acct-${id}`,
  amount,
});

const hostileRecords = fc.array(
  fc.record({ shape: orderShape, change: format.mutation, withHeader: fc.boolean() }),
  {
    minLength: 1,
    maxLength: 4,
  },
);

const property = fc.asyncProperty(hostileRecords, async (hostile) => {
  summary.cases += 1;
  const id = `${run}-${summary.cases}`;
  const valid = [order(`${id}-first`, 101), order(`${id}-last`, 202)];
  const values = hostile.map(({ shape, change }, index) =>
    render(format.pieces(order(`${id}-h${index}`, 7), shape), change),
  );
  const encode = (value: OrderPlaced) =>
    render(format.pieces(value, { lines: [], emptyItems: 0, tags: [], depth: 1 }), { kind: 'none' });
  const event = kafkaEvent([
    { offset: 0, key: 'k', value: encode(valid[0] as OrderPlaced) },
    ...values.map((value, index) => ({
      offset: index + 1,
      key: 'k',
      value,
      ...(hostile[index]?.withHeader ? { headers: { event_id: `evt-${id}-h${index}` } } : {}),
    })),
    { offset: values.length + 1, key: 'k', value: encode(valid[1] as OrderPlaced) },
  ]);

  // Tables of its own: the promise compares what they hold before and after the second delivery.
  const tables = { client, inboxTableName: `hostile-inbox-${id}`, appTableName: `hostile-app-${id}` };
  await Promise.all([
    createInboxTable(client, tables.inboxTableName),
    createAppTable(client, tables.appTableName),
  ]);
  const consumer = orderConsumerUnderTest(tables, `hostile-${id}`, format.valueFormat);
  let first: readonly RecordOutcome[] | undefined;
  const watched = {
    ...consumer,
    async invoke(delivered: typeof event) {
      const result = await consumer.invoke(delivered);
      first ??= result.outcomes;
      return result;
    },
  };
  const violations = await checkPoisonPromise(event, watched);

  for (const [index, value] of values.entries()) {
    summary.hostileValues += 1;
    summary.mutations[hostile[index]?.change.kind ?? 'none'] += 1;
    summary.largestValueBytes = Math.max(summary.largestValueBytes, value.length);
    const outcome = first?.find((candidate) => candidate.offset === index + 1);
    const verdict = format.valueFormat.parse(value, undefined);
    if (verdict.ok) {
      summary.decoded += 1;
      continue;
    }
    summary.undecodable += 1;
    const expected = format.name === 'json' ? 'invalid-event' : 'undecodable';
    if (
      outcome?.status !== 'quarantined' ||
      outcome.reason !== expected ||
      outcome.detail !== verdict.error
    ) {
      violations.push(
        `offset ${index + 1}: ${outcome?.status} ${outcome?.reason} (${outcome?.detail}), expected ${expected} (${verdict.error})`,
      );
    }
    if (Buffer.byteLength(verdict.error) > QUARANTINE_LIMITS.errorBytes)
      violations.push(`offset ${index + 1}: an unbounded reason`);
  }
  for (const applied of valid) {
    const balance = await balanceOf(tables.appTableName, applied.account_id);
    if (balance !== -applied.amount)
      violations.push(`${applied.event_id}: balance ${balance}, expected ${-applied.amount} (once)`);
  }
  await Promise.all(
    [tables.inboxTableName, tables.appTableName].map((TableName) =>
      client.send(new DeleteTableCommand({ TableName })),
    ),
  );
  summary.peakHeapMb = Math.max(summary.peakHeapMb, Math.round(process.memoryUsage().heapUsed / 2 ** 20));
  if (violations.length > 0) throw new Error(violations.join('\n'));
});

async function balanceOf(tableName: string, accountId: string): Promise<number | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: `account#${accountId}` } },
      ConsistentRead: true,
    }),
  );
  return Item?.balance?.N === undefined ? undefined : Number(Item.balance.N);
}

const result = await fc.check(property, { numRuns: Number(runsText), seed: Number(seedText) });
client.destroy();
console.log(JSON.stringify(summary satisfies HostileRunSummary));
if (result.failed) {
  console.error(fc.defaultReportMessage(result));
  process.exit(1);
}
