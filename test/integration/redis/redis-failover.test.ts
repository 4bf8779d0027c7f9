/**
 * What a failover does to the Redis store (docs/redis.md#failover), on two Debian redis-servers: a primary
 * and its replica. Replication is asynchronous, so a write the primary acknowledged may not have reached
 * the replica a failover promotes; here the replica stops following the primary before the batch (the
 * moment of the failover), the primary still answers the consumer, and then the consumer's endpoint moves
 * to the promoted replica, as a cache endpoint's name does after a failover.
 *
 * - A claim lost that way is healed at completion: the row is written back, LeaseLost counts it, and a
 *   redelivery is a duplicate.
 * - A completion lost that way cannot be seen: a redelivery runs the call again, with the same dedup key
 *   (what a downstream idempotency key absorbs). This is Redis's limit, not a bug: MemoryDB does not lose
 *   an acknowledged write.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { processBatch } from '../../../lambdas/core/batch-processor.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import { RedisInboxStore, type RedisScripting } from '../../../lambdas/redis/redis-inbox-store.js';
import { type RunningRedis, startRedisServer } from '../../../local/redis/redis-server.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { processorOptions } from '../../support/processor-options.js';
import { describeOnRedis } from '../../support/redis.js';

/** The cache's endpoint: one name whose node changes when a replica is promoted. */
function endpoint(initial: Redis): { readonly client: RedisScripting; failOverTo(next: Redis): void } {
  let current = initial;
  return {
    client: {
      eval: (script, keys, ...args) => current.eval(script, keys, ...args),
      exists: (...keys) => current.exists(...keys),
    },
    failOverTo(next) {
      current = next;
    },
  };
}

describeOnRedis('the Redis store across a failover', (primaryServer) => {
  let replicaServer: RunningRedis;
  let primary: Redis;
  let replica: Redis;
  beforeAll(async () => {
    replicaServer = await startRedisServer();
    primary = new Redis(primaryServer().url, { maxRetriesPerRequest: 1 });
    replica = new Redis(replicaServer.url, { maxRetriesPerRequest: 1 });
    // A full sync starts at once, not after the 5 s Redis waits by default for more replicas to join.
    await primary.config('SET', 'repl-diskless-sync-delay', '0');
    // And the replica loads it in memory: no dump.rdb written where the test runs.
    await replica.config('SET', 'repl-diskless-load', 'swapdb');
  });
  afterAll(async () => {
    await Promise.all([primary?.quit(), replica?.quit()]);
    await replicaServer?.stop();
  });

  beforeEach(async () => {
    // The replica follows the primary, and has everything it acknowledged so far.
    await replica.replicaof('127.0.0.1', primaryServer().port);
    await expect
      .poll(async () => (await replica.info('replication')).includes('master_link_status:up'))
      .toBe(true);
    await primary.set('synced', randomUUID());
    expect(await primary.wait(1, 5_000)).toBe(1);
    // The failover: the replica is promoted before the batch's writes reach it.
    await replica.replicaof('NO', 'ONE');
  });

  const consumer = (clock: ManualClock) => {
    const cache = endpoint(primary);
    const store = new RedisInboxStore({
      client: cache.client,
      consumer: `c-${randomUUID()}`,
      ttlSeconds: 3_600,
      clock,
    });
    const run = (effect: Effect) =>
      processBatch(
        decodeEvent(kafkaEvent([orderRecord(1, { eventId: 'e1' })])),
        processorOptions(store, clock, { effect }),
      );
    return { cache, store, run };
  };

  it('writes back a claim the failover lost when the call completes, counts it as LeaseLost, and dedups the redelivery', async () => {
    const clock = new ManualClock();
    const { cache, store, run } = consumer(clock);
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({
      kind: 'call',
      run: async () => {
        calls.push(dedupKey);
        // The claim was acknowledged by the old primary; the completion goes to the promoted replica.
        cache.failOverTo(replica);
      },
    });

    const first = await run(effect);
    const redelivered = await run(effect);

    expect(first.map((outcome) => [outcome.status, outcome.leaseLost])).toEqual([['processed', true]]);
    expect(redelivered.map((outcome) => outcome.status)).toEqual(['duplicate']);
    expect(calls).toEqual(['e1']);
    expect(await replica.exists(store.rowKey('e1'))).toBe(1);
  });

  it('cannot see a completion the failover lost: the redelivery runs the call again, with the same dedup key', async () => {
    const clock = new ManualClock();
    const { cache, run } = consumer(clock);
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({ kind: 'call', run: async () => void calls.push(dedupKey) });

    const first = await run(effect);
    cache.failOverTo(replica);
    const redelivered = await run(effect);

    expect(first.map((outcome) => [outcome.status, outcome.leaseLost])).toEqual([['processed', false]]);
    // Nothing in the consumer's outcomes or metrics tells this run from a first one.
    expect(redelivered.map((outcome) => [outcome.status, outcome.leaseLost])).toEqual([['processed', false]]);
    expect(calls).toEqual(['e1', 'e1']);
  });
});
