/**
 * redisLogin's refusals (lambdas/redis/redis-login.ts): a secret not in the shape asked for, systemic for
 * the record (lambdas/redis/redis-failure.ts); IAM without a region to sign for, at cold start.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { redisStoreError } from '../../../lambdas/redis/redis-failure.js';
import { redisLogin } from '../../../lambdas/redis/redis-login.js';
import { readRedisSettings } from '../../../lambdas/redis/redis-settings.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:payments-cache-AbCdEf';
const HOST = { REDIS_HOST: 'payments-cache-abc123.serverless.euw1.cache.amazonaws.com' };

describe('redisLogin', () => {
  it('logs in as nobody with REDIS_AUTH=none', async () => {
    expect(await redisLogin(readRedisSettings({}, HOST))()).toEqual({});
  });

  it('takes the default user when the secret names none, and refuses a secret without a password, systemically', async () => {
    const settings = readRedisSettings({}, { ...HOST, REDIS_AUTH: 'secret', REDIS_SECRET_ARN: ARN });
    const loginWith = (text: string) => redisLogin(settings, { secretText: async () => text })();

    expect(await loginWith('{"password":"p"}')).toEqual({ password: 'p' });
    const refused = await loginWith('{"username":"payments"}').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([
      `the secret ${ARN} is not JSON with a string password (and username, for a user other than default)`,
    ]);
    expect(redisStoreError('claim', refused)).toMatchObject({ failureClass: 'systemic' });
  });

  it('refuses IAM where AWS_REGION is not set', () => {
    const settings = readRedisSettings(
      {},
      { ...HOST, REDIS_AUTH: 'iam', REDIS_USER: 'payments', REDIS_CACHE_NAME: 'payments-cache' },
    );

    expect(() => redisLogin(settings, { env: {} })).toThrow(/AWS_REGION is not set/);
  });
});
