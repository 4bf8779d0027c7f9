/** readRedisSettings: what each kind of login needs, and the combinations refused, each named in one line. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { readRedisSettings } from '../../../lambdas/redis/redis-settings.js';

function problemsOf(read: () => unknown): readonly string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const HOST = { REDIS_HOST: 'payments-cache-abc123.serverless.euw1.cache.amazonaws.com' };

describe('readRedisSettings', () => {
  it('needs no login by default', () => {
    expect(readRedisSettings({}, HOST)).toMatchObject({ auth: 'none', tls: 'on', port: 6379 });
  });

  it.each([
    ['iam', ['REDIS_USER', 'REDIS_CACHE_NAME']],
    ['secret', ['REDIS_SECRET_ARN']],
  ])('with REDIS_AUTH=%s requires what it logs in with, and names each', (auth, required) => {
    expect(problemsOf(() => readRedisSettings({}, { ...HOST, REDIS_AUTH: auth }))).toEqual(
      required.map((name) => `${name} is required with REDIS_AUTH=${auth}`),
    );
  });

  it('takes IAM with its user, cache and kind', () => {
    expect(
      readRedisSettings(
        {},
        {
          ...HOST,
          REDIS_AUTH: 'iam',
          REDIS_USER: 'payments-consumer',
          REDIS_CACHE_NAME: 'payments-cache',
          REDIS_CACHE_KIND: 'memorydb',
        },
      ),
    ).toMatchObject({
      auth: 'iam',
      user: 'payments-consumer',
      cacheName: 'payments-cache',
      cacheKind: 'memorydb',
    });
  });

  it('refuses IAM without TLS, a cache name AWS would not keep, and a URL with a login', () => {
    expect(
      problemsOf(() =>
        readRedisSettings(
          {},
          {
            ...HOST,
            REDIS_AUTH: 'iam',
            REDIS_USER: 'u',
            REDIS_CACHE_NAME: 'Payments_Cache',
            REDIS_TLS: 'off',
          },
        ),
      ),
    ).toEqual([
      'REDIS_CACHE_NAME "Payments_Cache" must be the cache’s name as AWS keeps it: up to 40 lower-case letters, digits and hyphens, from a letter',
      'REDIS_TLS=off with REDIS_AUTH=iam: ElastiCache and MemoryDB accept IAM tokens over TLS only; remove REDIS_TLS=off',
    ]);
    expect(
      problemsOf(() =>
        readRedisSettings({ url: 'redis://127.0.0.1:6379', auth: 'secret', secretArn: 'arn:secret' }, {}),
      ),
    ).toEqual([
      'REDIS_URL is for a server here, its login (if any) in the URL: with REDIS_AUTH=secret, give REDIS_HOST and REDIS_PORT instead',
    ]);
  });
});
