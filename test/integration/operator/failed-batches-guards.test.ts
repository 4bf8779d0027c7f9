/**
 * `failed-batches replay`'s guards against applying an event twice, on batches the ESM emulator gave up
 * (fixtures/on-failure-folder.ts): a record older than the consumer's dedup window is not sent (its dedup
 * row may have expired: docs/operate.md#failed-batches), and a partition that stopped in one batch stays
 * stopped for the later batches of the same run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
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

const DAY_MS = 86_400_000;

let tables: TestTables;
let endpoint: string;
let folder: string;

interface Replayed {
  code: number;
  batches: {
    id: string;
    records: { partition: string; offset: number; outcome: string; detail: string }[];
  }[];
}
const replayAt = async (nowMs: number, ...argv: string[]): Promise<Replayed> =>
  replayFolderAt(folder, nowMs, ...argv);
const replayFolderAt = async (dir: string, nowMs: number, ...argv: string[]): Promise<Replayed> => {
  const argvAll = [
    'failed-batches',
    'replay',
    '--all',
    '--handler',
    FLAKY_HANDLER_FILE,
    '--json',
    '--dir',
    dir,
  ];
  const result = await operator(tables, endpoint, [...argvAll, ...argv], undefined, () => nowMs);
  return { code: result.code, batches: JSON.parse(result.out).batches };
};
const outcomes = (replayed: Replayed) =>
  Object.fromEntries(
    replayed.batches.flatMap((b) => b.records.map((r) => [`${r.partition}@${r.offset}`, r.outcome])),
  );
const appliedCount = (eventId: string) => appliedCountOf(tables, eventId);

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
  // Two records a batch: orders-0 is given up as two batches (@0..1, then @2..3), orders-1 as one.
  expect(await fillOnFailureFolder(folder, { batchSize: 2 })).toBe(3);
  // a-1 was applied before its batch failed, as in a batch that failed half way.
  const response = await deliver(
    kafkaEvent([{ partition: 0, offset: 0, value: { event_id: 'a-1', amount: 10 } }]),
  );
  expect(response.batchItemFailures).toEqual([]);
}, 60_000);

afterAll(async () => {
  delete process.env.DEDUP_TTL_SECONDS;
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('past the dedup window', () => {
  // Eight days on, a-1's dedup row (7 days by default) may have expired: no row would not mean not applied.
  const aged = Date.now() + 8 * DAY_MS;

  it('list and show mark the records older than the window', async () => {
    const listed = await operator(
      tables,
      endpoint,
      ['failed-batches', 'list', '--dir', folder],
      undefined,
      () => aged,
    );
    expect(listed.out).toMatch(/orders-0@0\.\.1 +2 \(2 past window\)/);
    const json = await operator(tables, endpoint, ['failed-batches', 'list', '--json', '--dir', folder]);
    expect(JSON.parse(json.out).batches.map((b: { pastDedupWindow: number }) => b.pastDedupWindow)).toEqual([
      0, 0, 0,
    ]);
    const id = JSON.parse(json.out).batches.find(
      (b: { partitions: { firstOffset: number; partition: string }[] }) =>
        b.partitions[0]?.partition === 'orders-0' && b.partitions[0]?.firstOffset === 0,
    ).id as string;
    const shown = await operator(
      tables,
      endpoint,
      ['failed-batches', 'show', id, '--dir', folder],
      undefined,
      () => aged,
    );
    expect(shown.out).toMatch(
      /^orders-0@0 .* past the dedup window: replay sends it only with --past-dedup-window$/m,
    );
  });

  it('sends none of them: past-dedup-window, the partition stops, exit 1; nothing applied twice', async () => {
    const replayed = await replayAt(aged);
    expect(replayed.code).toBe(1);
    expect(outcomes(replayed)).toEqual({
      'orders-0@0': 'past-dedup-window',
      'orders-0@1': 'not-sent',
      'orders-0@2': 'not-sent',
      'orders-0@3': 'not-sent',
      'orders-1@0': 'past-dedup-window',
      'orders-1@1': 'not-sent',
    });
    expect(replayed.batches[0]?.records[0]?.detail).toMatch(
      /older than the dedup window \(7 d less 1 h for clock skew, this shell's environment\).*--past-dedup-window sends it/,
    );
    expect(await appliedCount('a-1')).toBe(1);
    expect(await appliedCount('b-1')).toBeUndefined();
  });

  it('takes the window from DEDUP_TTL_SECONDS: within a 30-day window the records are sent', async () => {
    process.env.DEDUP_TTL_SECONDS = String(30 * 86_400);
    try {
      const replayed = await replayAt(aged, '--dry-run');
      expect(Object.values(outcomes(replayed))).toEqual(Array(6).fill('would-replay'));
    } finally {
      delete process.env.DEDUP_TTL_SECONDS;
    }
  });

  it('sends them with --past-dedup-window: a-1, its dedup row expired, is not a provable duplicate', async () => {
    const replayed = await replayAt(aged, '--past-dedup-window', '--dry-run');
    // Found by its coordinates: which partition's batch was given up first depends on the pollers' timing.
    const a1 = replayed.batches
      .flatMap((batch) => batch.records)
      .find((record) => record.partition === 'orders-0' && record.offset === 0);
    // Its row is still in the table (TTL deletes lazily) but expired 7 days after it was written: the
    // consumer takes its key as free (the claim condition, docs/design.md#the-claim-condition), so the
    // record would be applied again, not acked as a duplicate.
    expect(await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'a-1'))).toBeDefined();
    expect(a1).toMatchObject({ outcome: 'would-replay', detail: 'would be sent' });
    const fresh = await replayAt(Date.now(), '--dry-run');
    const a1Now = fresh.batches
      .flatMap((batch) => batch.records)
      .find((record) => record.partition === 'orders-0' && record.offset === 0);
    expect(a1Now).toMatchObject({
      outcome: 'would-replay',
      detail: 'its key is applied already: it would be a duplicate',
    });
  });
});

describe("a partition's stop", () => {
  it("holds for the later batches of the run: orders-0's second batch is not sent after the first failed", async () => {
    const replayed = await failingFor('a-2', async () => replayAt(Date.now()));
    expect(replayed.code).toBe(1);
    expect(outcomes(replayed)).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'failed',
      'orders-0@2': 'not-sent',
      'orders-0@3': 'not-sent',
      'orders-1@0': 'applied',
      'orders-1@1': 'applied',
    });
    const second = replayed.batches.find((b) => b.records[0]?.offset === 2);
    expect(second?.records[0]?.detail).toBe(
      "orders-0@1 before it did not go through (the partition's order is kept)",
    );
    expect(await appliedCount('a-3')).toBeUndefined();
    expect(await appliedCount('a-4')).toBeUndefined();
    expect(await appliedCount('a-1')).toBe(1);
  });
});

describe('a record without a usable timestamp', () => {
  // A record the window cannot place (no timestamp, or not a number) cannot be proven unapplied: it is
  // past the window (operator/consumer-settings.ts, pastDedupWindow), whatever the clock says.
  it('is not sent: past-dedup-window, nothing applied', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'on-failure-untimed-'));
    try {
      const order = (partition: number, eventId: string, timestamp?: unknown) => ({
        topic: 'orders',
        partition,
        offset: 0,
        ...(timestamp === undefined ? {} : { timestamp }),
        timestampType: 'CREATE_TIME',
        key: null,
        value: Buffer.from(JSON.stringify({ event_id: eventId, amount: 5 })).toString('base64'),
        headers: [],
      });
      const event = {
        eventSource: 'aws:kafka',
        eventSourceArn: 'arn:aws:kafka:us-east-1:000000000000:cluster/demo/abc',
        bootstrapServers: 'b-1.demo:9098',
        records: { 'orders-2': [order(2, 'c-1')], 'orders-3': [order(3, 'd-1', '2020-01-01T00:00:00Z')] },
      };
      const key = 'aws/lambda/6f1c2a3b/orders-2/2026/11/30/2026-11-30T22.00.00-0b7e4a3c-untimed';
      await mkdir(join(dir, ...key.split('/').slice(0, -1)), { recursive: true });
      await writeFile(
        join(dir, ...key.split('/')),
        JSON.stringify({
          requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 },
          responseContext: { statusCode: 200, functionError: 'Unhandled' },
          timestamp: new Date().toISOString(),
          KafkaBatchInfo: { payloadSize: 100 },
          payload: JSON.stringify(event),
        }),
      );
      const replayed = await replayFolderAt(dir, Date.now());
      expect(replayed.code).toBe(1);
      expect(outcomes(replayed)).toEqual({
        'orders-2@0': 'past-dedup-window',
        'orders-3@0': 'past-dedup-window',
      });
      const details = replayed.batches.flatMap((batch) => batch.records.map((record) => record.detail));
      expect(details[0]).toMatch(/^it has no usable timestamp \(none\)/);
      expect(details[1]).toMatch(/^it has no usable timestamp \(a string/);
      expect(await appliedCount('c-1')).toBeUndefined();
      expect(await appliedCount('d-1')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
