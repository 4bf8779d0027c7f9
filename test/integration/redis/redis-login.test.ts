/**
 * Logging in to Debian's redis-server as the deployed consumer does (docs/redis.md#authentication): a user
 * made with ACL SETUSER, its password from a Secrets Manager secret (a stub standing in for the service),
 * a refused login systemic and the next connection reading the secret again; and an IAM login, its tokens
 * made the server's passwords (fixed credentials and a hand-moved clock sign them alike), reconnecting
 * after 15 minutes with a new token once the old one is refused.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { InboxStoreError } from '../../../lambdas/core/errors.js';
import { cacheIamToken } from '../../../lambdas/redis/cache-iam-token.js';
import { connectionOptions } from '../../../lambdas/redis/redis-client.js';
import { type ManagedClient, RedisConnection } from '../../../lambdas/redis/redis-connection.js';
import { RedisInboxStore } from '../../../lambdas/redis/redis-inbox-store.js';
import type { LoginSources } from '../../../lambdas/redis/redis-login.js';
import { type RedisSettings, readRedisSettings } from '../../../lambdas/redis/redis-settings.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnRedis } from '../../support/redis.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:payments-cache-AbCdEf';
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

describeOnRedis('logging in to Redis', (server) => {
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(server().url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await admin?.quit();
  });

  /** A user who may run the store's scripts on its keys only, with these passwords. */
  const setUser = (name: string, ...passwords: string[]) =>
    admin.call(
      'ACL',
      'SETUSER',
      name,
      'on',
      'resetpass',
      ...passwords.map((p) => `>${p}`),
      'resetkeys',
      '~msk-inbox:*',
      '+@all',
    );

  /** A store on a connection whose clients the test can see. */
  function storeOn(settings: RedisSettings, sources: LoginSources, clock: ManualClock) {
    const options = connectionOptions(settings, sources);
    const clients: ManagedClient[] = [];
    const connection = new RedisConnection({
      ...options,
      clientFor: (login) => {
        const client = options.clientFor(login);
        clients.push(client);
        return client;
      },
    });
    const store = new RedisInboxStore({
      client: connection,
      consumer: `c-${randomUUID()}`,
      ttlSeconds: 3_600,
      clock,
    });
    return { store, clients, connection };
  }

  const claim = (store: RedisInboxStore, clock: ManualClock, key: string) =>
    store.claim(entry(key), clock.nowMs() + 60_000);

  it('logs in as the secret’s user with its password (REDIS_AUTH=secret)', async () => {
    const user = `payments-${randomUUID()}`;
    await setUser(user, 'first-password');
    const clock = new ManualClock();
    const reads: string[] = [];
    const settings = readRedisSettings(
      {},
      {
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: String(server().port),
        REDIS_TLS: 'off',
        REDIS_AUTH: 'secret',
        REDIS_SECRET_ARN: SECRET_ARN,
      },
    );
    const { store, connection } = storeOn(
      settings,
      {
        secretText: async (arn) => {
          reads.push(arn);
          return JSON.stringify({
            username: user,
            password: 'first-password',
            user_arn: 'arn:aws:elasticache:eu-west-1:123456789012:user:payments',
          });
        },
      },
      clock,
    );
    try {
      expect(await claim(store, clock, 'k1')).toMatchObject({ kind: 'claimed' });
      expect(await claim(store, clock, 'k2')).toMatchObject({ kind: 'claimed' });

      expect(reads).toEqual([SECRET_ARN]);
      expect(String(await admin.call('CLIENT', 'LIST'))).toContain(`user=${user} `);
    } finally {
      await connection.end();
    }
  });

  it('finds a refused login systemic, and the next connection reads the rotated secret', async () => {
    const user = `payments-${randomUUID()}`;
    await setUser(user, 'rotated-password');
    const clock = new ManualClock();
    let password = 'old-password';
    const settings = readRedisSettings(
      {},
      {
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: String(server().port),
        REDIS_TLS: 'off',
        REDIS_AUTH: 'secret',
        REDIS_SECRET_ARN: SECRET_ARN,
      },
    );
    const { store, connection } = storeOn(
      settings,
      {
        secretText: async () => JSON.stringify({ username: user, password }),
        now: () => new Date(clock.nowMs()),
      },
      clock,
    );
    try {
      const refused = await claim(store, clock, 'k1').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InboxStoreError);
      expect(refused).toMatchObject({
        failureClass: 'systemic',
        message: expect.stringContaining('WRONGPASS'),
      });

      password = 'rotated-password';
      clock.advance(5 * 60_000 + 1);
      expect(await claim(store, clock, 'k1')).toMatchObject({ kind: 'claimed' });
    } finally {
      await connection.end();
    }
  });

  it('reconnects with a token signed then, 15 minutes on, once the server refuses the old one (REDIS_AUTH=iam)', async () => {
    const user = `payments-${randomUUID()}`;
    const clock = new ManualClock(Date.UTC(2026, 2, 4, 5, 6, 7));
    const now = () => new Date(clock.nowMs());
    // The settings a deployed consumer gets, but without TLS, which redis-server here does not speak:
    // readRedisSettings refuses IAM without it, so they are written out.
    const settings: RedisSettings = {
      ...readRedisSettings(
        {},
        { REDIS_HOST: '127.0.0.1', REDIS_PORT: String(server().port), REDIS_TLS: 'off' },
      ),
      auth: 'iam',
      user,
      cacheName: 'payments-cache',
      cacheKind: 'serverless',
    };
    const tokenAt = () =>
      cacheIamToken({
        cacheName: 'payments-cache',
        cacheKind: 'serverless',
        user,
        region: 'eu-west-1',
        credentials: async () => CREDENTIALS,
        now,
      });
    await setUser(user, await tokenAt());
    const { store, clients, connection } = storeOn(
      settings,
      { credentials: async () => CREDENTIALS, env: { AWS_REGION: 'eu-west-1' }, now },
      clock,
    );
    try {
      expect(await claim(store, clock, 'k1')).toMatchObject({ kind: 'claimed' });

      clock.advance(15 * 60_000);
      await setUser(user, await tokenAt());
      await admin.call('CLIENT', 'KILL', 'USER', user);
      await vi.waitUntil(() => clients[0]?.status === 'end');
      expect(await claim(store, clock, 'k2')).toMatchObject({ kind: 'claimed' });

      expect(clients).toHaveLength(2);
    } finally {
      await connection.end();
    }
  });
});
