/**
 * `failed-batches list | show | replay` against DynamoDB Local, on batches the ESM emulator itself gave up
 * to its on-failure folder (fixtures/on-failure-folder.ts), read from the folder (--dir) and from a
 * loopback S3 server serving that folder as a bucket, through the real S3 client (--bucket).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { failedBatchRowKey } from '../../../lambdas/core/inbox-rows.js';
import { InProcessFunction } from '../../../local/esm/lambda-function.js';
import { startInvokeApiServer } from '../../../local/lambda-runtime/invoke-api-server.js';
import { type FolderBucketServer, startFolderBucketServer } from '../../../local/s3/folder-bucket-server.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { startCloudFormationStub } from '../../support/cloudformation-stub.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { fillOnFailureFolder } from './fixtures/on-failure-folder.js';
import {
  appliedCountOf,
  CONSUMER,
  deliver,
  FLAKY_HANDLER_FILE,
  failingFor,
  operator,
  useConsumerEnvironment,
} from './operator-harness.js';

const BUCKET = 'order-consumer-failed-batches';

let tables: TestTables;
let endpoint: string;
let folder: string;
let s3: FolderBucketServer;
const servers: FolderBucketServer[] = [];

const run = (...argv: string[]) => operator(tables, endpoint, argv);
const fromFolder = () => ['--dir', folder];
const fromBucket = (server = s3, bucket = BUCKET) => ['--bucket', bucket, '--s3-endpoint', server.endpoint];

interface ListedBatch {
  id: string;
  key: string;
  condition: string;
  approximateInvokeCount: number;
  partitions: { partition: string; firstOffset: number; lastOffset: number; records: number }[];
  records: number;
  payloadBytes: number;
  replay: { attempts: number; counts: Record<string, number>; replayedBy: string } | null;
}
const list = async (...source: string[]) => {
  const result = await run('failed-batches', 'list', '--json', ...source);
  return {
    ...result,
    listed: JSON.parse(result.out) as { total: number; skipped: { key: string }[]; batches: ListedBatch[] },
  };
};
/** The id of the batch holding partition `partition`. */
const idOf = async (partition: string) =>
  (await list(...fromFolder())).listed.batches.find((b) => b.partitions[0]?.partition === partition)?.id ??
  '';

interface Replayed {
  code: number;
  records: { partition: string; offset: number; outcome: string; detail: string }[];
}
const replay = async (...argv: string[]): Promise<Replayed> => {
  const result = await run(
    'failed-batches',
    'replay',
    '--handler',
    FLAKY_HANDLER_FILE,
    '--json',
    ...fromFolder(),
    ...argv,
  );
  const parsed = JSON.parse(result.out) as { batches: { records: Replayed['records'] }[] };
  return { code: result.code, records: parsed.batches.flatMap((batch) => batch.records) };
};
const record = (replayed: Replayed, coordinates: string) =>
  replayed.records.find((r) => `${r.partition}@${r.offset}` === coordinates);
const outcomes = (replayed: Replayed) =>
  Object.fromEntries(replayed.records.map((r) => [`${r.partition}@${r.offset}`, r.outcome]));
const appliedCount = (eventId: string) => appliedCountOf(tables, eventId);

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
  expect(await fillOnFailureFolder(folder)).toBe(2);
  // Not an on-failure record: named and skipped, never taken for one.
  await writeFile(join(folder, 'README.txt'), 'the failed batches of order-consumer\n');
  // Two keys per page, so the client follows continuation tokens.
  s3 = await startFolderBucketServer({ root: folder, bucket: BUCKET, pageSize: 2 });
  servers.push(s3);
  // a-1 was applied by an earlier delivery, before the batch failed: a replay finds it a duplicate.
  const response = await deliver(
    kafkaEvent([{ partition: 0, offset: 0, value: { event_id: 'a-1', amount: 10 } }]),
  );
  expect(response.batchItemFailures).toEqual([]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('failed-batches list', () => {
  it('lists what the mapping gave up, per batch, from the folder, and names the file that is not one', async () => {
    const { code, listed, notes } = await list(...fromFolder());
    expect(code).toBe(0);
    expect(listed.total).toBe(2);
    expect(listed.skipped.map((s) => s.key)).toEqual(['README.txt']);
    expect(notes).toMatch(/skipped README\.txt: not an on-failure record \(not JSON\)/);
    const byPartition = Object.fromEntries(listed.batches.map((b) => [b.partitions[0]?.partition, b]));
    expect(byPartition['orders-0']).toMatchObject({
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 2,
      partitions: [{ partition: 'orders-0', firstOffset: 0, lastOffset: 3, records: 4 }],
      records: 4,
      replay: null,
    });
    expect(byPartition['orders-1']).toMatchObject({
      partitions: [{ partition: 'orders-1', firstOffset: 0, lastOffset: 1, records: 2 }],
    });
    for (const batch of listed.batches) {
      expect(batch.key).toMatch(/^aws\/lambda\/6f1c2a3b-[0-9a-f-]+\/orders-\d\/\d{4}\/\d\d\/\d\d\//);
      expect(batch.key.endsWith(batch.id)).toBe(true);
      expect(batch.id).toHaveLength(8);
    }
  });

  it('lists the same batches from the bucket through the real S3 client, page by page', async () => {
    const folderList = await list(...fromFolder());
    const bucketList = await list(...fromBucket());
    expect(bucketList.listed.batches).toEqual(folderList.listed.batches);
    expect(bucketList.listed.skipped).toEqual(folderList.listed.skipped);
  });

  it("finds the bucket in the stack's FailedBatchesBucket output with --stack", async () => {
    const cloudFormation = await startCloudFormationStub({ OrdersStack: { FailedBatchesBucket: BUCKET } });
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudFormation.endpoint;
    try {
      const fromStack = await list(
        '--stack',
        'OrdersStack',
        '--region',
        'us-east-1',
        '--s3-endpoint',
        s3.endpoint,
      );
      expect(fromStack.listed.batches).toEqual((await list(...fromFolder())).listed.batches);
      expect(cloudFormation.requests).toEqual(['OrdersStack']);
    } finally {
      delete process.env.AWS_ENDPOINT_URL_CLOUDFORMATION;
      await cloudFormation.close();
    }
  });

  it('prints a table for people, and --since leaves out older batches', async () => {
    const { out } = await run('failed-batches', 'list', ...fromFolder());
    expect(out).toMatch(/^ID +FAILED +CONDITION +PARTITIONS +RECORDS +SIZE +INVOKES +REPLAYED/);
    expect(out).toMatch(/RetryAttemptsExhausted +orders-0@0\.\.3 +4 /);
    expect(out).toMatch(/2 failed batches in folder .*; 1 other object\(s\) skipped$/);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await run('failed-batches', 'list', '--since', future, ...fromFolder())).out).toMatch(
      /^no failed batches in folder .* since then$/,
    );
  });
});

describe('failed-batches show', () => {
  it('decodes each record with its dedup key and what the inbox holds for it, from folder and bucket', async () => {
    const id = await idOf('orders-0');
    const shown = await run('failed-batches', 'show', id, '--json', ...fromFolder());
    const batch = JSON.parse(shown.out);
    expect(batch).toMatchObject({ id, condition: 'RetryAttemptsExhausted', functionError: 'Unhandled' });
    expect(batch.records).toHaveLength(4);
    expect(batch.records[0]).toMatchObject({
      coordinates: 'orders-0@0',
      dedupKey: 'a-1',
      inbox: 'applied (first seen at orders-0@0)',
      key: { text: 'account-0' },
      headers: [{ name: 'producer', text: 'checkout' }],
      value: { json: { event_id: 'a-1', amount: 10 } },
    });
    expect(batch.records[1]).toMatchObject({
      coordinates: 'orders-0@1',
      dedupKey: 'a-2',
      inbox: 'not applied',
    });
    const fromS3 = await run('failed-batches', 'show', id, '--json', ...fromBucket());
    expect(JSON.parse(fromS3.out)).toEqual(batch);
    const text = await run('failed-batches', 'show', id, ...fromFolder());
    expect(text.out).toContain('condition   RetryAttemptsExhausted (function error: Unhandled)');
    expect(text.out).toContain('  value      JSON, 30 B: {"event_id":"a-2","amount":20}');
  });
});

describe('failed-batches replay', () => {
  it('changes nothing with --dry-run, and says which record would be a duplicate', async () => {
    const before = await tables.scan(tables.inboxTableName);
    const { code, records } = await replay('--all', '--dry-run');
    expect(code).toBe(0);
    expect(records).toHaveLength(6);
    expect(records.every((r) => r.outcome === 'would-replay')).toBe(true);
    expect(record({ code, records }, 'orders-0@0')?.detail).toMatch(/duplicate/);
    expect(record({ code, records }, 'orders-0@1')?.detail).toBe('would be sent');
    expect(await tables.scan(tables.inboxTableName)).toEqual(before);
    expect(await appliedCount('a-2')).toBeUndefined();
  });

  it('stops a partition at its first failure: the records after it are not sent (exit 1)', async () => {
    const replayed = await failingFor('a-2', async () => replay(await idOf('orders-0')));
    expect(replayed.code).toBe(1);
    expect(outcomes(replayed)).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'failed',
      'orders-0@2': 'not-sent',
      'orders-0@3': 'not-sent',
    });
    expect(record(replayed, 'orders-0@1')?.detail).toBe('the handler threw: downstream unavailable for a-2');
    expect(await appliedCount('a-1')).toBe(1);
    expect(await appliedCount('a-4')).toBeUndefined();
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@2`)).toBeUndefined();
  });

  it('applies each record once the cause is fixed, quarantines the poison one, records the replay', async () => {
    const replayed = await replay('--all');
    expect(replayed.code).toBe(1);
    expect(outcomes(replayed)).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'applied',
      'orders-0@2': 'quarantined',
      'orders-0@3': 'applied',
      'orders-1@0': 'applied',
      'orders-1@1': 'applied',
    });
    expect(record(replayed, 'orders-0@2')?.detail).toMatch(/^invalid-event: /);
    for (const eventId of ['a-1', 'a-2', 'a-4', 'b-1', 'b-2']) expect(await appliedCount(eventId)).toBe(1);
    const quarantined = await run('quarantine', 'list', '--json');
    expect(JSON.parse(quarantined.out).rows.map((r: { id: string }) => r.id)).toEqual(['orders-0@2']);
    const { listed } = await list(...fromFolder());
    const batch0 = listed.batches.find((b) => b.partitions[0]?.partition === 'orders-0');
    expect(batch0?.replay).toMatchObject({
      attempts: 2,
      replayedBy: 'test-operator',
      counts: { duplicate: 1, applied: 2, quarantined: 1 },
    });
    const row = await tables.get(
      tables.inboxTableName,
      failedBatchRowKey(CONSUMER, batch0?.key.split('/').at(-1) ?? ''),
    );
    expect(row).toMatchObject({ replay_attempts: 2, object_key: batch0?.key });
    expect(row).not.toHaveProperty('expires_at');
  });

  it('applies nothing twice: replaying again makes every applied record a duplicate', async () => {
    const replayed = await replay('--all');
    expect(outcomes(replayed)).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'duplicate',
      'orders-0@2': 'quarantined',
      'orders-0@3': 'duplicate',
      'orders-1@0': 'duplicate',
      'orders-1@1': 'duplicate',
    });
    expect(record(replayed, 'orders-0@2')?.detail).toMatch(
      /in the quarantine already \(invalid-event\): not sent/,
    );
    for (const eventId of ['a-1', 'a-2', 'a-4', 'b-1', 'b-2']) expect(await appliedCount(eventId)).toBe(1);
    const batch1 = (await list(...fromFolder())).listed.batches.find(
      (b) => b.partitions[0]?.partition === 'orders-1',
    );
    expect(batch1?.replay).toMatchObject({ attempts: 2, counts: { duplicate: 2 } });
  });

  it('names an object that is not an on-failure record, replays nothing of it and exits 1', async () => {
    const result = await run(
      'failed-batches',
      'replay',
      'README.txt',
      '--handler',
      FLAKY_HANDLER_FILE,
      ...fromFolder(),
    );
    expect(result.code).toBe(1);
    expect(result.notes).toMatch(/^skipped README\.txt: not an on-failure record \(not JSON\)$/m);
    expect(result.out).toBe('nothing to replay');
  });

  it('takes the same invokers as quarantine replay: --function through the Invoke API; exit 0 all acked', async () => {
    const { handler } = await import('./fixtures/flaky-orders-handler.js');
    const invokeApi = await startInvokeApiServer({
      functions: new Map([['order-consumer', new InProcessFunction(handler)]]),
    });
    try {
      const through = ['--function', 'order-consumer', '--lambda-endpoint', invokeApi.endpoint];
      const result = await run(
        'failed-batches',
        'replay',
        await idOf('orders-1'),
        '--json',
        ...through,
        ...fromBucket(),
      );
      expect(result.code).toBe(0);
      const { batches } = JSON.parse(result.out) as { batches: { records: Replayed['records'] }[] };
      expect(batches.map((batch) => batch.records.map((r) => r.outcome))).toEqual([
        ['duplicate', 'duplicate'],
      ]);
    } finally {
      await invokeApi.close();
    }
  });
});

describe('mistakes are one line', () => {
  const failure = async (...argv: string[]) => {
    const error = await run(...argv).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  };

  it('a bad id, a missing folder, no such bucket', async () => {
    expect(await failure('failed-batches', 'show', 'nope1234', ...fromFolder())).toMatch(
      /^no failed batch nope1234 in folder .*: `msk-inbox failed-batches list` prints the ids$/,
    );
    expect(
      await failure('failed-batches', 'replay', 'nope1234', '--handler', FLAKY_HANDLER_FILE, ...fromBucket()),
    ).toMatch(/^no failed batch nope1234 in s3:\/\/order-consumer-failed-batches\//);
    expect(await failure('failed-batches', 'list', '--dir', join(folder, 'missing'))).toMatch(
      /^--dir .*missing: no such folder/,
    );
    expect(await failure('failed-batches', 'list', ...fromBucket(s3, 'no-such-bucket'))).toMatch(
      /^no bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+: check --bucket/,
    );
    expect(await failure('failed-batches', 'list')).toMatch(/^where are the failed batches\?/);
  });

  it('access denied names the IAM action: s3:ListBucket to list, s3:GetObject to read', async () => {
    const noList = await startFolderBucketServer({ root: folder, bucket: BUCKET, deny: ['s3:ListBucket'] });
    const noGet = await startFolderBucketServer({ root: folder, bucket: BUCKET, deny: ['s3:GetObject'] });
    servers.push(noList, noGet);
    expect(await failure('failed-batches', 'list', ...fromBucket(noList))).toMatch(
      /^S3 denied s3:ListBucket on arn:aws:s3:::order-consumer-failed-batches: /,
    );
    expect(await failure('failed-batches', 'list', ...fromBucket(noGet))).toMatch(
      /^S3 denied s3:GetObject on arn:aws:s3:::order-consumer-failed-batches\/\*: /,
    );
  });
});
