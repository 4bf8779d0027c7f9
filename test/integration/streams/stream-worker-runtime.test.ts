import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import { createTableKeyedBy } from '../../../local/dynamodb-local/tables.js';
import { buildBundles } from '../../../local/lambda-runtime/build-bundles.js';
import { WorkerFunction } from '../../../local/lambda-runtime/worker-function.js';
import { StreamEventSourceMapping } from '../../../local/streams/stream-event-source-mapping.js';
import { createStreamTable, DRAIN_MS, type StreamTable } from './stream-harness.js';

const COPIER_ENTRY = resolve(import.meta.dirname, 'fixtures', 'stream-copier.ts');

let directory: string;
let table: StreamTable;
let copyTableName: string;
let fn: WorkerFunction | undefined;
let mapping: StreamEventSourceMapping | undefined;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'msk-inbox-stream-runtime-'));
  table = await createStreamTable();
  copyTableName = `${table.tableName}-copy`;
  await createTableKeyedBy(table.client, copyTableName, 'pk');
});

afterAll(async () => {
  await mapping?.stop();
  await fn?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('the DynamoDB stream mapping over the worker runtime', () => {
  it('runs a bundled stream function, and retries the batch whose environment crashed mid-batch', async () => {
    const bundles = await buildBundles(directory, { entry: COPIER_ENTRY, name: 'stream-copier' });
    fn = new WorkerFunction({
      ...bundles,
      functionName: 'stream-copier',
      dynamoDbEndpoint: table.endpoint,
      environment: {
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        COPY_TABLE_NAME: copyTableName,
      },
    });
    let invocations = 0;
    mapping = new StreamEventSourceMapping({
      endpoint: table.endpoint,
      tableName: table.tableName,
      function: fn,
      settings: { pollIntervalMs: 20, reportBatchItemFailures: true },
      // The first environment dies after its second write: applied, never answered.
      faults: { crashAfterWrites: () => (++invocations === 1 ? 2 : undefined) },
    });
    // Written before the start: the first read (TRIM_HORIZON) takes them all into one batch.
    for (const value of ['v1', 'v2', 'v3', 'v4']) await table.put(value, value);
    await mapping.start();

    await mapping.drained(DRAIN_MS);

    const copies = await table.client.send(new ScanCommand({ TableName: copyTableName }));
    const sequences = await table.sequenceNumbers();
    expect((copies.Items ?? []).map((item) => item.pk?.S).sort()).toEqual(
      ['v1', 'v2', 'v3', 'v4'].map((value, index) => `${value}@${sequences[index]}`).sort(),
    );
    expect(mapping.stats).toMatchObject({ crashes: 1, invocations: 2, deliveredRecords: 8 });
    expect(fn.stats.coldStarts).toBe(2);
  });
});
