/**
 * The quarantine commands on a Redis inbox (`--redis URL`), on entries a real consumer on the Redis store
 * quarantined (fixtures/redis-orders-handler.ts), against Debian's redis-server: list, show, replay
 * (applied once, duplicate, quarantined again, failed, a parked entry finished), discard, and the guards
 * that keep two operators from overwriting each other. The same rules as on DynamoDB and Postgres
 * (postgres-quarantine.test.ts); what differs is where the entries are (docs/redis.md).
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KafkaBatchResponse, KafkaEvent } from '../../../lambdas/core/kafka-event.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { getRow } from '../../../operator/operator-inbox.js';
import { RedisOperatorInbox } from '../../../operator/redis-operator-inbox.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { describeOnRedis } from '../../support/redis.js';
import { CONSUMER, deliver } from './operator-harness.js';
import {
  REDIS_HANDLER_FILE,
  redisEntries,
  redisOperator,
  useRedisConsumerEnvironment,
} from './redis-harness.js';

const POISON = [
  { offset: 10, value: { event_id: 'e10', amount: 500 }, headers: { trace: 'abc' } },
  { offset: 11, value: { amount: 5 } },
  { offset: 12, value: { event_id: 'e12', amount: 600 } },
  { offset: 13, value: { event_id: 'e13', amount: 700 } },
  { offset: 14, value: { event_id: 'e14', amount: 800 } },
  { offset: 15, value: { event_id: 'e15', amount: 900 } },
  { offset: 16, value: { event_id: 'e16', amount: 300 } },
  { offset: 17, value: { event_id: 'e17', amount: 300 } },
];

describeOnRedis('the quarantine commands on Redis', (server) => {
  let client: Redis;
  let consumer: (event: KafkaEvent, context: Context) => Promise<KafkaBatchResponse>;
  let appliedOrderKey: (eventId: string) => string;
  const run = (...argv: string[]) => redisOperator(server().url, argv);
  const answering = (answer: string | undefined, ...argv: string[]) =>
    redisOperator(server().url, argv, answer);
  const entries = () => redisEntries(client);
  const appliedCount = async (eventId: string) => Number((await client.get(appliedOrderKey(eventId))) ?? 0);
  const listed = async (...argv: string[]) =>
    JSON.parse((await run('quarantine', 'list', '--json', ...argv)).out) as {
      total: number;
      countsByReason: Record<string, number>;
      rows: { id: string; dedupKey?: string; replaying: boolean }[];
    };
  const listedIds = async (...argv: string[]) => (await listed(...argv)).rows.map((r) => r.id);
  const replay = async (...argv: string[]) => {
    const result = await run('quarantine', 'replay', '--handler', REDIS_HANDLER_FILE, '--json', ...argv);
    const parsed = JSON.parse(result.out) as { results: { id: string; outcome: string; detail: string }[] };
    return { code: result.code, results: parsed.results };
  };
  /** An inbox of the operator's own, as a second operator's command holds one. */
  const operatorInbox = () =>
    new RedisOperatorInbox({
      client,
      consumer: CONSUMER,
      where: 'test',
      advice: () => undefined,
      handlerVariables: {},
      namedBy: {},
    });

  beforeAll(async () => {
    client = new Redis(server().url, { maxRetriesPerRequest: 1 });
    useRedisConsumerEnvironment(server().url);
    const fixture = await import('./fixtures/redis-orders-handler.js');
    consumer = fixture.handler;
    appliedOrderKey = fixture.appliedOrderKey;
    // One batch each, so their quarantined_at differ.
    for (const spec of POISON) {
      expect((await deliver(kafkaEvent([spec]), Date.now(), consumer)).batchItemFailures).toEqual([]);
      await sleep(3);
    }
  });

  afterAll(async () => {
    await client?.quit();
  });

  it('lists every quarantined record newest first, with the counts per reason, --reason, --limit, --since', async () => {
    const all = await listed();
    expect(all.rows.map((r) => r.id)).toEqual(POISON.map((p) => `orders-0@${p.offset}`).reverse());
    expect(all.countsByReason).toEqual({ 'invalid-event': 7, 'missing-event-id': 1 });
    expect(all.rows.find((r) => r.id === 'orders-0@10')?.dedupKey).toBe('e10');
    expect(await listedIds('--reason', 'missing-event-id')).toEqual(['orders-0@11']);
    const limited = await listed('--limit', '2');
    expect({ rows: limited.rows.length, total: limited.total }).toEqual({ rows: 2, total: 8 });
    const since = (await entries().entry('orders-0@16'))?.quarantined_at as number;
    expect(await listedIds('--since', new Date(since).toISOString())).toEqual(['orders-0@17', 'orders-0@16']);
  });

  it('shows an entry and its record decoded', async () => {
    const shown = JSON.parse((await run('quarantine', 'show', 'orders-0@10', '--json')).out);
    expect(shown.record.value).toEqual({ json: { event_id: 'e10', amount: 500 } });
    expect(shown.record.headers).toEqual([{ name: 'trace', text: 'abc' }]);
    expect(shown.row).toMatchObject({ reason: 'invalid-event', status: 'QUARANTINED' });
  });

  it('refuses an id that has no entry, in one line naming the server', async () => {
    await expect(run('quarantine', 'show', 'orders-0@999')).rejects.toThrow(
      new UserError(
        `no quarantine row orders-0@999 for consumer orders in Redis at 127.0.0.1:${server().port}: \`msk-inbox quarantine list\` prints the ids`,
      ),
    );
  });

  it('changes nothing with --dry-run', async () => {
    const before = await entries().entry('orders-0@10');
    const { code, results } = await replay('orders-0@10', '--dry-run');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'would-replay' });
    expect(await entries().entry('orders-0@10')).toEqual(before);
  });

  it('keeps a record its consumer still refuses listed, with the new entry and the replay recorded (exit 1)', async () => {
    const before = await entries().entry('orders-0@10');
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 1, outcome: 'quarantined-again' });
    const after = await entries().entry('orders-0@10');
    expect(after).toMatchObject({
      status: 'QUARANTINED',
      reason: 'invalid-event',
      replay_attempts: 1,
      replay_outcome: 'quarantined-again',
      quarantined_since: before?.quarantined_at,
    });
    expect(after?.quarantined_at as number).toBeGreaterThan(before?.quarantined_at as number);
    expect(await entries().parked('orders-0@10')).toBeUndefined();
    expect(await entries().indexOf('orders-0@10')).toBe('quarantine');
    expect((await listedIds())[0]).toBe('orders-0@10');
    expect(await appliedCount('e10')).toBe(0);
  });

  it('applies a record once its cause is fixed: it leaves the listing and stays, RESOLVED, for audit', async () => {
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'applied' });
    expect(await appliedCount('e10')).toBe(1);
    const after = await entries().entry('orders-0@10');
    expect(after).toMatchObject({ status: 'RESOLVED', replay_outcome: 'applied', replay_attempts: 2 });
    expect(after).not.toHaveProperty('quarantine_consumer');
    expect(await entries().indexOf('orders-0@10')).toBe('audit');
    expect(await listedIds()).not.toContain('orders-0@10');
  });

  it('applies nothing twice: a second replay of an applied record is a duplicate', async () => {
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'duplicate' });
    expect(await appliedCount('e10')).toBe(1);
    expect(await entries().entry('orders-0@10')).toMatchObject({ status: 'RESOLVED', replay_attempts: 3 });
    expect(await entries().indexOf('orders-0@10')).toBe('audit');
  });

  it('resolves as a duplicate a record whose event was applied from another delivery', async () => {
    await deliver(
      kafkaEvent([{ offset: 41, value: { event_id: 'e12', amount: 600 } }]),
      Date.now(),
      consumer,
    );
    expect(await appliedCount('e12')).toBe(1);
    expect((await replay('orders-0@12')).results[0]?.outcome).toBe('duplicate');
    expect(await appliedCount('e12')).toBe(1);
  });

  it('puts a record back as it was when the consumer reports it (failed, exit 1)', async () => {
    const failing = join(import.meta.dirname, 'fixtures', 'failing-handler.ts');
    const before = await entries().entry('orders-0@13');
    const reported = await run('quarantine', 'replay', 'orders-0@13', '--handler', failing, '--json');
    expect(reported.code).toBe(1);
    expect(JSON.parse(reported.out).results[0]).toMatchObject({ outcome: 'failed' });
    expect(await entries().entry('orders-0@13')).toEqual({
      ...before,
      replayed_at: expect.any(Number),
      replay_attempts: 1,
      replay_outcome: 'failed',
      replay_detail: 'reported for retry by the consumer',
    });
    expect(await entries().indexOf('orders-0@13')).toBe('quarantine');
    expect(await listedIds()).toContain('orders-0@13');
  });

  it('finishes a replay that stopped after parking the entry: listed as replaying until then', async () => {
    const inbox = operatorInbox();
    const parked = await getRow(inbox, 'orders-0@14');
    expect(parked && (await inbox.park(parked))).toBe(true);
    expect(await entries().entry('orders-0@14')).toBeUndefined();
    expect(await entries().parked('orders-0@14')).toMatchObject({ pk: `${CONSUMER}!replaying#orders-0@14` });
    expect(await entries().indexOf('orders-0@14', 'parked')).toBe('quarantine');
    expect((await listed()).rows.find((r) => r.id === 'orders-0@14')).toMatchObject({ replaying: true });
    const { results } = await replay('orders-0@14');
    expect(results[0]?.outcome).toBe('applied');
    expect(await entries().entry('orders-0@14')).toMatchObject({ status: 'RESOLVED', replay_attempts: 1 });
    expect(await entries().parked('orders-0@14')).toBeUndefined();
    expect(await entries().indexOf('orders-0@14', 'parked')).toBeUndefined();
    expect(await appliedCount('e14')).toBe(1);
  });

  it('refuses to discard or park an entry that changed since it was read, and changes nothing', async () => {
    const first = operatorInbox();
    const second = operatorInbox();
    const readByFirst = await first.quarantineRow('orders-0@15');
    const readBySecond = await second.quarantineRow('orders-0@15');
    if (readByFirst === undefined || readBySecond === undefined) throw new Error('no entry orders-0@15');
    const by = { who: 'second', why: 'duplicate order', nowMs: Date.now() };
    expect(await second.discard(readBySecond, by)).toBe(true);
    const discarded = await entries().entry('orders-0@15');
    expect(await first.discard(readByFirst, { ...by, who: 'first' })).toBe(false);
    expect(await first.park(readByFirst)).toBe(false);
    expect(await entries().entry('orders-0@15')).toEqual(discarded);
    expect(discarded).toMatchObject({ status: 'DISCARDED', discarded_by: 'second' });
    expect(await entries().parked('orders-0@15')).toBeUndefined();
    expect(await entries().indexOf('orders-0@15')).toBe('audit');
  });

  it('refuses to park an entry that a replay parked already, and the replay then folds the fresh one in', async () => {
    process.env.ORDERS_MAX_AMOUNT = '100';
    // A replay parked e16's entry and stopped; the consumer quarantined a redelivery under the free key.
    const inbox = operatorInbox();
    const first = await inbox.quarantineRow('orders-0@16');
    expect(first && (await inbox.park(first))).toBe(true);
    await deliver(
      kafkaEvent([{ offset: 16, value: { event_id: 'e16', amount: 300 } }]),
      Date.now(),
      consumer,
    );
    const fresh = await inbox.quarantineRow('orders-0@16');
    expect(fresh && (await inbox.park(fresh))).toBe(false);
    expect(await entries().entry('orders-0@16')).toMatchObject({ status: 'QUARANTINED' });
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { results } = await replay('--all', '--reason', 'invalid-event', '--dry-run');
    expect(results.filter((r) => r.id === 'orders-0@16')).toHaveLength(1);
    expect((await replay('orders-0@16')).results[0]?.outcome).toBe('applied');
    expect(await entries().entry('orders-0@16')).toMatchObject({
      status: 'RESOLVED',
      replay_outcome: 'applied',
    });
    expect(await entries().parked('orders-0@16')).toBeUndefined();
    expect(await entries().indexOf('orders-0@16')).toBe('audit');
    expect(await appliedCount('e16')).toBe(1);
  });

  it('changes nothing on discard --dry-run or without a yes', async () => {
    const before = await entries().entry('orders-0@17');
    expect((await run('quarantine', 'discard', 'orders-0@17', '--dry-run')).out).toMatch(
      /orders-0@17\s+would discard/,
    );
    await expect(answering(undefined, 'quarantine', 'discard', 'orders-0@17')).rejects.toThrow(
      'discarding 1 record(s) needs a yes: run it in a terminal, or pass --yes',
    );
    expect((await answering('n', 'quarantine', 'discard', 'orders-0@17')).code).toBe(1);
    expect(await entries().entry('orders-0@17')).toEqual(before);
  });

  it('discards: the entry marked (who, when, why), out of the listing, kept for audit', async () => {
    const result = await answering('y', 'quarantine', 'discard', 'orders-0@17', '--why', 'test order');
    expect(result.code).toBe(0);
    expect(await entries().entry('orders-0@17')).toMatchObject({
      status: 'DISCARDED',
      discarded_by: 'test-operator',
      discard_reason: 'test order',
      discarded_at: expect.any(Number),
      quarantined_since: expect.any(Number),
    });
    expect(await entries().indexOf('orders-0@17')).toBe('audit');
    expect(await listedIds()).not.toContain('orders-0@17');
    const again = await run('quarantine', 'discard', 'orders-0@17', '--yes');
    expect({ code: again.code, out: again.out }).toMatchObject({
      code: 1,
      out: expect.stringMatching(/not quarantined \(DISCARDED\)/),
    });
  });

  it('discards --all of one reason with --yes', async () => {
    const result = await run('quarantine', 'discard', '--all', '--reason', 'missing-event-id', '--yes');
    expect(result.code).toBe(0);
    expect(await listedIds('--reason', 'missing-event-id')).toEqual([]);
    expect(await entries().entry('orders-0@11')).toMatchObject({ status: 'DISCARDED' });
  });
});
