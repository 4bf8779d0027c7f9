/**
 * The side-effect mode (claim → call → complete or release) through the batch processor, on the Redis
 * store against Debian's redis-server: each call runs once across redeliveries, a failed call is released
 * and runs again on the redelivery, a plan that writes to a database is reported as the store's setup
 * mistake (never quarantined), and a server that refuses the client is systemic while one that is gone is
 * transient (docs/redis.md).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { processBatch } from '../../../lambdas/core/batch-processor.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import { InboxStoreError } from '../../../lambdas/core/errors.js';
import { RedisInboxStore } from '../../../lambdas/redis/redis-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { processorOptions } from '../../support/processor-options.js';
import { describeOnRedis } from '../../support/redis.js';

describeOnRedis('the side-effect mode on Redis', (server) => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(server().url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await client?.quit();
  });

  const storeOf = (clock: ManualClock, redis: Redis = client) =>
    new RedisInboxStore({ client: redis, consumer: `c-${randomUUID()}`, ttlSeconds: 3_600, clock });

  const runner = (store: RedisInboxStore, clock: ManualClock) => (effect: Effect) =>
    processBatch(
      decodeEvent(kafkaEvent([orderRecord(1, { eventId: 'e1' }), orderRecord(2, { eventId: 'e2' })])),
      processorOptions(store, clock, { effect }),
    );

  it('runs each call once across redeliveries', async () => {
    const clock = new ManualClock();
    const run = runner(storeOf(clock), clock);
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({ kind: 'call', run: async () => void calls.push(dedupKey) });

    const first = await run(effect);
    const second = await run(effect);

    expect(calls).toEqual(['e1', 'e2']);
    expect(first.map((outcome) => outcome.status)).toEqual(['processed', 'processed']);
    expect(second.map((outcome) => outcome.status)).toEqual(['duplicate', 'duplicate']);
  });

  it('releases a failed call, and the redelivery runs it again', async () => {
    const clock = new ManualClock();
    const run = runner(storeOf(clock), clock);
    let failing = true;
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({
      kind: 'call',
      run: async () => {
        calls.push(dedupKey);
        if (failing && dedupKey === 'e1') throw new Error('payment gateway timed out');
      },
    });

    expect((await run(effect)).map((outcome) => outcome.status)).toEqual(['failed', 'blocked']);
    failing = false;
    expect((await run(effect)).map((outcome) => outcome.status)).toEqual(['processed', 'processed']);
    expect(calls).toEqual(['e1', 'e1', 'e2']);
  });

  it('reports a plan that writes to a database as the setup’s mistake: systemic, never quarantined', async () => {
    const clock = new ManualClock();
    const store = storeOf(clock);
    const run = runner(store, clock);

    const outcomes = await run(() => ({ kind: 'transact', writes: [] }));

    expect(outcomes.map((outcome) => [outcome.status, outcome.reason])).toEqual([
      ['failed', 'systemic-store-error'],
      ['blocked', 'not-started'],
    ]);
    expect(await store.isQuarantined('orders-0@1')).toBe(false);
  });

  it('classes a refused login as systemic and a server that is gone as transient', async () => {
    const clock = new ManualClock();
    const refused = new Redis(server().url, {
      username: 'nobody',
      password: 'wrong',
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    refused.on('error', () => undefined);
    const gone = new Redis({
      port: 1,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    gone.on('error', () => undefined);
    try {
      const login = await storeOf(clock, refused)
        .claim(entry('k1'), clock.nowMs() + 60_000)
        .catch((error) => error);
      expect(login).toBeInstanceOf(InboxStoreError);
      expect(login).toMatchObject({ failureClass: 'systemic' });

      const down = await storeOf(clock, gone)
        .claim(entry('k1'), clock.nowMs() + 60_000)
        .catch((error) => error);
      expect(down).toBeInstanceOf(InboxStoreError);
      expect(down).toMatchObject({ failureClass: 'transient' });
    } finally {
      refused.disconnect();
      gone.disconnect();
    }
  });
});
