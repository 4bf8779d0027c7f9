/**
 * The InboxStore contract (test/support/inbox-store-contract.ts) on the Redis store, against Debian's
 * redis-server: every case of the side-effect mode (claims, leases, expiry, quarantine); the commit cases
 * are reported skipped, with the reason. Each case's keys live under a consumer name of its own.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisInboxStore } from '../../../lambdas/redis/redis-inbox-store.js';
import { describeInboxStoreContract } from '../../support/inbox-store-contract.js';
import { describeOnRedis } from '../../support/redis.js';

const NO_BUSINESS_ITEMS = 'the side-effect mode writes no business items through the store';

describeOnRedis('RedisInboxStore', (server) => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(server().url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await client?.quit();
  });

  describeInboxStoreContract('RedisInboxStore', {
    capabilities: {
      transactions: {
        unsupported: 'Redis cannot commit with a database write: the store serves the side-effect mode only',
      },
      contentLimits: { unsupported: NO_BUSINESS_ITEMS },
      twoWritesOnOneItemRefused: { unsupported: NO_BUSINESS_ITEMS },
      stepsSeeEarlierSteps: { unsupported: NO_BUSINESS_ITEMS },
      storeConstraints: { unsupported: NO_BUSINESS_ITEMS },
    },
    async makeHarness({ clock, ttlSeconds }) {
      const store = new RedisInboxStore({ client, consumer: `c-${randomUUID()}`, ttlSeconds, clock });
      return {
        store,
        effectOf: () => ({ writes: [] }),
        businessRejection: () => {
          throw new Error(NO_BUSINESS_ITEMS);
        },
        appItem: async () => undefined,
        holdsDedupRow: async (dedupKey) => (await client.exists(store.rowKey(dedupKey))) === 1,
      };
    },
  });
});
