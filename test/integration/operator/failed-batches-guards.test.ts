/**
 * `failed-batches replay`'s guards against applying an event twice, on batches the ESM emulator gave up
 * (fixtures/on-failure-folder.ts): a record older than the consumer's dedup window is not sent (its dedup
 * row may have expired: docs/operate.md#failed-batches), and a partition that stopped in one batch stays
 * stopped for the later batches of the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { fillOnFailureFolder } from './fixtures/on-failure-folder.js';
import { deliver, operator, useConsumerEnvironment } from './operator-harness.js';

const FLAKY_HANDLER = join(import.meta.dirname, 'fixtures', 'flaky-orders-handler.ts');
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
const replayAt = async (nowMs: number, ...argv: string[]): Promise<Replayed> => {
  const argvAll = [
    'failed-batches',
    'replay',
    '--all',
    '--handler',
    FLAKY_HANDLER,
    '--json',
    '--dir',
    folder,
  ];
  const result = await operator(tables, endpoint, [...argvAll, ...argv], undefined, () => nowMs);
  return { code: result.code, batches: JSON.parse(result.out).batches };
};
const outcomes = (replayed: Replayed) =>
  Object.fromEntries(
    replayed.batches.flatMap((b) => b.records.map((r) => [`${r.partition}@${r.offset}`, r.outcome])),
  );
const appliedCount = async (eventId: string) =>
  (await tables.get(tables.appTableName, `order#${eventId}`))?.applied as number | undefined;

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
      /older than the dedup window \(7 d, this shell's environment\).*--past-dedup-window sends it/,
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

  it('sends them with --past-dedup-window: a-1 is still a duplicate while its dedup row is there', async () => {
    const replayed = await replayAt(aged, '--past-dedup-window', '--dry-run');
    // Found by its coordinates: which partition's batch was given up first depends on the pollers' timing.
    const a1 = replayed.batches
      .flatMap((batch) => batch.records)
      .find((record) => record.partition === 'orders-0' && record.offset === 0);
    expect(a1).toMatchObject({
      outcome: 'would-replay',
      detail: 'its key is applied already: it would be a duplicate',
    });
  });
});

describe("a partition's stop", () => {
  it("holds for the later batches of the run: orders-0's second batch is not sent after the first failed", async () => {
    process.env.FAIL_EVENT_IDS = 'a-2';
    let replayed: Replayed;
    try {
      replayed = await replayAt(Date.now());
    } finally {
      delete process.env.FAIL_EVENT_IDS;
    }
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
