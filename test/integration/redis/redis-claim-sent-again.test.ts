/**
 * ioredis sends a command again when its connection is lost before the answer came
 * (autoResendUnfulfilledCommands, once with the store's maxRetriesPerRequest): a claim whose first send
 * ran then finds its own row. The store must know it as its own, as the DynamoDB store does when the SDK
 * retries a claim; the soak found it reporting another attempt's live lease instead
 * (`npm run soak -- --store redis`, docs/redis.md#the-soak-on-redis).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisInboxStore, type RedisScripting } from '../../../lambdas/redis/redis-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnRedis } from '../../support/redis.js';

describeOnRedis('a command ioredis sends again', (server) => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(server().url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await client?.quit();
  });

  /** Every script runs twice, and the second answer is the one the store gets: a resend after a lost answer. */
  const sentTwice = (): RedisScripting => ({
    eval: async (script, numberOfKeys, ...args) => {
      await client.eval(script, numberOfKeys, ...args);
      return client.eval(script, numberOfKeys, ...args);
    },
    exists: (...keys) => client.exists(...keys),
  });

  it('claims when the first send of the claim ran: the row is the claim’s own, and its lease completes', async () => {
    const clock = new ManualClock();
    const store = new RedisInboxStore({
      client: sentTwice(),
      consumer: `c-${randomUUID()}`,
      ttlSeconds: 3_600,
      clock,
    });

    const claim = await store.claim(entry('e1'), clock.nowMs() + 60_000);

    expect(claim.kind).toBe('claimed');
    if (claim.kind !== 'claimed') return;
    expect(await store.complete(claim.lease)).toBe('completed');
  });

  it('still answers in-flight for a live lease another claim holds', async () => {
    const clock = new ManualClock();
    const consumer = `c-${randomUUID()}`;
    const holder = new RedisInboxStore({ client, consumer, ttlSeconds: 3_600, clock });
    const other = new RedisInboxStore({ client: sentTwice(), consumer, ttlSeconds: 3_600, clock });
    expect((await holder.claim(entry('e1'), clock.nowMs() + 60_000)).kind).toBe('claimed');

    const claim = await other.claim(entry('e1'), clock.nowMs() + 60_000);

    expect(claim.kind).toBe('in-flight');
  });
});
