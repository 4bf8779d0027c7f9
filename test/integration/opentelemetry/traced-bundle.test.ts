/**
 * The done-when of traces (docs/tracing.md): a record with a producer's `traceparent` driven through the very
 * bundle CDK deploys (the order consumer, built by buildBundles), in the worker-thread runtime with an
 * OpenTelemetry SDK registered before the bundle loads (as the ADOT layer does), against DynamoDB Local.
 * The spans are read back from the OTLP/JSON file the runtime's exporter writes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dedupRowKey, INBOX_ATTRIBUTES, INBOX_STATUS } from '../../../lambdas/core/inbox-rows.js';
import { buildBundles } from '../../../local/lambda-runtime/build-bundles.js';
import type { WorkerFunction } from '../../../local/lambda-runtime/worker-function.js';
import type { TracedSpan } from '../../../local/tracing/otlp-json.js';
import { LOCAL_TRACES_FILE_VARIABLE, readTraceFile } from '../../../local/tracing/trace-file.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord, type RecordSpec } from '../../support/kafka-events.js';
import { orderConsumerBundle } from '../../support/order-consumer-bundle.js';

const PRODUCER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PRODUCER_SPAN = 'b7ad6b7169203331';

let tables: TestTables;
let directory: string;
let tracesFile: string;
let fn: WorkerFunction;

beforeAll(async () => {
  tables = await createTestTables();
  directory = await mkdtemp(join(tmpdir(), 'msk-inbox-traced-bundle-'));
  tracesFile = join(directory, 'traces.jsonl');
  await buildBundles(directory);
  fn = orderConsumerBundle({
    bundleDirectory: directory,
    dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    functionName: 'order-consumer',
    environment: {
      INBOX_TABLE_NAME: tables.inboxTableName,
      APP_TABLE_NAME: tables.appTableName,
      CONSUMER_NAME: 'order-consumer',
      KAFKA_CONSUMER_GROUP_ID: 'order-consumer-group',
      [LOCAL_TRACES_FILE_VARIABLE]: tracesFile,
    },
  });
}, 120_000);

afterAll(async () => {
  await fn?.close();
  await rm(directory, { recursive: true, force: true });
});

async function deliver(specs: readonly RecordSpec[]): Promise<TracedSpan[]> {
  const outcome = await fn.invoke({
    event: kafkaEvent(specs),
    requestId: `req-${specs[0]?.offset}`,
    deadlineMs: Date.now() + 30_000,
  });
  expect(outcome).toEqual({ kind: 'returned', response: { batchItemFailures: [] } });
  return readTraceFile(tracesFile);
}

function recordSpan(spans: readonly TracedSpan[], offset: number): TracedSpan {
  const found = spans.find(
    (span) => span.name === 'process orders' && span.attributes['kafka.offset'] === offset,
  );
  if (!found)
    throw new Error(`no record span for offset ${offset} among ${spans.map((s) => s.name).join(', ')}`);
  return found;
}

describe('a traced record through the deployed bundle', () => {
  it("links the record's span to its traceparent, with the messaging attributes and its DynamoDB request as a child", async () => {
    const spans = await deliver([
      {
        ...orderRecord(41, { eventId: 'traced-1', orderId: 'order-traced-1', amount: 25 }),
        headers: { event_id: 'traced-1', traceparent: `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01` },
      },
    ]);
    const record = recordSpan(spans, 41);
    expect(record.links).toEqual([
      { traceId: PRODUCER_TRACE, spanId: PRODUCER_SPAN, attributes: { 'msk_inbox.link': 'producer' } },
    ]);
    expect(record.kind).toBe(5);
    expect(record.service).toBe('order-consumer');
    expect(record.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.destination.partition.id': '0',
      'messaging.consumer.group.name': 'order-consumer-group',
      'kafka.offset': 41,
      'msk_inbox.outcome': 'applied',
      'msk_inbox.dedup_key': 'traced-1',
    });

    const requests = spans.filter((span) => span.parentSpanId === record.spanId);
    expect(requests.map((span) => span.name)).toContain('DynamoDB.TransactWriteItems');
    const transaction = requests.find((span) => span.name === 'DynamoDB.TransactWriteItems') as TracedSpan;
    expect(transaction.kind).toBe(3);
    expect(transaction.attributes).toMatchObject({
      'rpc.system': 'aws-api',
      'rpc.service': 'DynamoDB',
      'db.system.name': 'aws.dynamodb',
      'msk_inbox.transaction.records': 1,
      'msk_inbox.request.attempts': 1,
    });
    // The inbox row and the sample's two writes (the order and its account's balance).
    expect(transaction.attributes['db.operation.batch.size']).toBe(3);
    expect(transaction.attributes['aws.dynamodb.table_names']).toEqual(
      [tables.appTableName, tables.inboxTableName].sort(),
    );
    expect(transaction.startMs).toBeGreaterThanOrEqual(record.startMs);
    expect(transaction.endMs).toBeLessThanOrEqual(record.endMs);

    const batch = spans.find((span) => span.spanId === record.parentSpanId);
    expect(batch?.name).toBe('process orders batch');
    const invocation = spans.find((span) => span.spanId === batch?.parentSpanId);
    expect(invocation?.attributes).toMatchObject({ 'faas.invocation_id': 'req-41' });
  });

  it('processes a record whose traceparent is malformed, its span unlinked', async () => {
    const spans = await deliver([
      {
        ...orderRecord(42, { eventId: 'traced-2', amount: 10 }),
        headers: { event_id: 'traced-2', traceparent: `00-${PRODUCER_TRACE}-0000000000000000-01` },
      },
    ]);
    const record = recordSpan(spans, 42);
    expect(record.links).toEqual([]);
    expect(record.attributes['msk_inbox.outcome']).toBe('applied');
  });

  it("records a cancelled transaction's reason per action on its span, and the quarantine row as the record's next request", async () => {
    // An earlier copy of the event with another payload committed in another container: this container's
    // cache does not know it, so the transaction goes out and DynamoDB cancels it on the inbox row.
    await tables.documentClient.send(
      new PutCommand({
        TableName: tables.inboxTableName,
        Item: {
          [INBOX_ATTRIBUTES.pk]: dedupRowKey('order-consumer', 'traced-taken'),
          [INBOX_ATTRIBUTES.status]: INBOX_STATUS.completed,
          [INBOX_ATTRIBUTES.expiresAt]: Math.floor(Date.now() / 1000) + 3_600,
          [INBOX_ATTRIBUTES.payloadHash]: 'another payload',
        },
      }),
    );
    const spans = await deliver([orderRecord(46, { eventId: 'traced-taken', accountId: 'acct-46' })]);
    const record = recordSpan(spans, 46);
    expect(record.attributes['msk_inbox.outcome']).toBe('quarantined');
    const requests = spans
      .filter((span) => span.parentSpanId === record.spanId)
      .sort((a, b) => a.startMs - b.startMs);
    const [transaction, quarantine] = requests;
    expect(transaction?.name).toBe('DynamoDB.TransactWriteItems');
    expect(transaction?.statusCode).toBe(2);
    expect(transaction?.attributes['msk_inbox.dynamodb.cancellation_reasons']).toEqual([
      'ConditionalCheckFailed',
      'None',
      'None',
    ]);
    expect(transaction?.events.map((event) => event.name)).toContain('exception');
    expect(quarantine?.statusCode).toBe(0);
    expect(requests).toHaveLength(2);
  });

  it('makes one transaction of a group the child of its partition, linked to each record it carries', async () => {
    const spans = await deliver(
      // Each on an account of its own: records that touch one item never share a transaction.
      [43, 44, 45].map((offset) =>
        orderRecord(offset, { eventId: `traced-${offset}`, accountId: `acct-${offset}`, amount: 5 }),
      ),
    );
    const records = [43, 44, 45].map((offset) => recordSpan(spans, offset));
    const batch = spans.find((span) => span.spanId === records[0]?.parentSpanId) as TracedSpan;
    const transaction = spans.find(
      (span) => span.parentSpanId === batch.spanId && span.name === 'DynamoDB.TransactWriteItems',
    );
    expect(transaction?.attributes['msk_inbox.transaction.records']).toBe(3);
    expect(transaction?.links.map((link) => link.spanId).sort()).toEqual(
      records.map((record) => record.spanId).sort(),
    );
  });
});
