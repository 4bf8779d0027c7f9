/**
 * The failed-batches commands on a Redis inbox (their replay log a hash beside the quarantine), and the
 * bounds of what stays in Redis: the listing capped by the store, the entries dealt with and the replay
 * logs capped by the operator, the oldest going first (docs/redis.md#the-operator-on-redis). Against
 * Debian's redis-server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { RedisInboxStore } from '../../../lambdas/redis/redis-inbox-store.js';
import { redisAuditIndexKey, redisQuarantineEntryKey } from '../../../lambdas/redis/redis-keys.js';
import { RedisOperatorInbox } from '../../../operator/redis-operator-inbox.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { describeOnRedis } from '../../support/redis.js';
import { fillOnFailureFolder } from './fixtures/on-failure-folder.js';
import { deliver } from './operator-harness.js';
import { REDIS_HANDLER_FILE, redisOperator, useRedisConsumerEnvironment } from './redis-harness.js';

describeOnRedis('failed batches and bounds on Redis', (server) => {
  let client: Redis;
  let folder: string;
  let appliedOrderKey: (eventId: string) => string;
  const run = (...argv: string[]) => redisOperator(server().url, argv);
  const batches = (...argv: string[]) => run('failed-batches', ...argv, '--dir', folder, '--json');
  const appliedCount = async (eventId: string) => Number((await client.get(appliedOrderKey(eventId))) ?? 0);
  const inboxOf = (consumer: string, caps: { auditCap?: number; replayLogCap?: number } = {}) =>
    new RedisOperatorInbox({
      client,
      consumer,
      where: 'test',
      advice: () => undefined,
      handlerVariables: {},
      namedBy: {},
      ...caps,
    });
  /** Quarantines a record at each offset, a millisecond apart, as the consumer would. */
  const quarantineAt = async (store: RedisInboxStore, clock: ManualClock, offsets: readonly number[]) => {
    for (const offset of offsets) {
      const record = decodeEvent(kafkaEvent([{ offset, value: { amount: 5 } }]))[0]?.records[0];
      if (record === undefined) throw new Error('no record');
      const coordinates = `orders-0@${offset}`;
      await store.quarantine({
        coordinates,
        reason: 'missing-event-id',
        message: 'no id',
        record: record.raw,
      });
      clock.advance(1);
    }
  };

  beforeAll(async () => {
    client = new Redis(server().url, { maxRetriesPerRequest: 1 });
    useRedisConsumerEnvironment(server().url);
    const fixture = await import('./fixtures/redis-orders-handler.js');
    appliedOrderKey = fixture.appliedOrderKey;
    folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
    expect(await fillOnFailureFolder(folder)).toBe(2);
    // a-1 was applied before its batch failed: a replay finds it a duplicate.
    const applied = kafkaEvent([{ partition: 0, offset: 0, value: { event_id: 'a-1', amount: 10 } }]);
    expect((await deliver(applied, Date.now(), fixture.handler)).batchItemFailures).toEqual([]);
  });

  afterAll(async () => {
    await client?.quit();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('replays each failed record once, tells the outcomes from Redis, and logs the replay there', async () => {
    const listed = JSON.parse((await batches('list')).out).batches as {
      id: string;
      partitions: { partition: string }[];
    }[];
    const id = listed.find((b) => b.partitions[0]?.partition === 'orders-0')?.id ?? '';
    const shown = JSON.parse((await batches('show', id)).out);
    expect(shown.records[0]).toMatchObject({ dedupKey: 'a-1', inbox: 'applied (first seen at orders-0@0)' });
    const replayAll = ['failed-batches', 'replay', '--all', '--dir', folder, '--handler', REDIS_HANDLER_FILE];
    const replayed = await run(...replayAll, '--json');
    const outcomes = Object.fromEntries(
      (
        JSON.parse(replayed.out).batches as {
          records: { partition: string; offset: number; outcome: string }[];
        }[]
      )
        .flatMap((b) => b.records)
        .map((r) => [`${r.partition}@${r.offset}`, r.outcome]),
    );
    expect(outcomes).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'applied',
      'orders-0@2': 'quarantined',
      'orders-0@3': 'applied',
      'orders-1@0': 'applied',
      'orders-1@1': 'applied',
    });
    expect(replayed.code).toBe(1);
    expect(await appliedCount('a-2')).toBe(1);
    await run(...replayAll);
    expect(await appliedCount('a-2')).toBe(1);
    const logged = JSON.parse((await batches('list')).out).batches as {
      partitions: { partition: string }[];
      replay: { attempts: number; counts: Record<string, number>; replayedBy: string };
    }[];
    expect(logged.find((b) => b.partitions[0]?.partition === 'orders-0')?.replay).toMatchObject({
      attempts: 2,
      counts: { duplicate: 3, quarantined: 1 },
      replayedBy: 'test-operator',
    });
  });

  it('lists the newest entries only, past the store’s cap: the oldest are deleted', async () => {
    const clock = new ManualClock();
    const store = new RedisInboxStore({
      client,
      consumer: 'capped',
      ttlSeconds: 3_600,
      clock,
      quarantineCap: 3,
    });
    await quarantineAt(store, clock, [1, 2, 3, 4, 5]);
    const { rows, countsByReason } = await inboxOf('capped').listQuarantined({});
    expect(rows.map((row) => row.id)).toEqual(['orders-0@5', 'orders-0@4', 'orders-0@3']);
    expect(countsByReason).toEqual({ 'missing-event-id': 3 });
    expect(await client.exists(redisQuarantineEntryKey('capped', 'orders-0@1'))).toBe(0);
  });

  it('keeps the entries dealt with most recently, past the audit cap: the others are deleted', async () => {
    const clock = new ManualClock();
    const store = new RedisInboxStore({ client, consumer: 'audited', ttlSeconds: 3_600, clock });
    await quarantineAt(store, clock, [1, 2, 3, 4]);
    const inbox = inboxOf('audited', { auditCap: 2 });
    // Dealt with in another order than they came: the audit keeps by when an operator acted.
    for (const [index, id] of ['orders-0@3', 'orders-0@1', 'orders-0@2'].entries()) {
      const row = await inbox.quarantineRow(id);
      if (row === undefined) throw new Error(`no entry ${id}`);
      expect(await inbox.discard(row, { who: 'ops', why: 'test', nowMs: 1_000 + index })).toBe(true);
    }
    expect(await client.zrange(redisAuditIndexKey('audited'), '0', '-1')).toEqual([
      redisQuarantineEntryKey('audited', 'orders-0@1'),
      redisQuarantineEntryKey('audited', 'orders-0@2'),
    ]);
    expect(await inbox.quarantineRow('orders-0@3')).toBeUndefined();
    expect((await inbox.listQuarantined({})).rows.map((row) => row.id)).toEqual(['orders-0@4']);
  });

  it('counts a batch’s replays on its log, and keeps the logs of the batches replayed last past their cap', async () => {
    const inbox = inboxOf('logged', { replayLogCap: 2 });
    const replayOf = (atMs: number) => ({
      atMs,
      by: 'ops',
      results: [{ partition: 'orders-0', offset: 1, outcome: 'applied' as const, detail: 'applied' }],
    });
    await inbox.recordReplay({ name: 'b1', objectKey: 'failed/b1.json' }, replayOf(1));
    await inbox.recordReplay({ name: 'b1', objectKey: 'failed/b1.json' }, replayOf(2));
    expect(await inbox.readReplayLog('b1')).toEqual({
      attempts: 2,
      firstReplayedAtMs: 1,
      replayedAtMs: 2,
      replayedBy: 'ops',
      counts: { applied: 1 },
      runs: [{ partition: 'orders-0', from: 1, to: 1, outcome: 'applied' }],
      notes: [],
    });
    await inbox.recordReplay({ name: 'b2', objectKey: 'failed/b2.json' }, replayOf(3));
    await inbox.recordReplay({ name: 'b3', objectKey: 'failed/b3.json' }, replayOf(4));
    expect(await inbox.readReplayLog('b1')).toBeUndefined();
    expect((await inbox.readReplayLog('b2'))?.attempts).toBe(1);
    expect((await inbox.readReplayLog('b3'))?.attempts).toBe(1);
  });
});
