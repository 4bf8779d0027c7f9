/**
 * The secret read the Postgres and Redis stores share (lambdas/core/secrets-manager-secret.ts): read once,
 * read again only past SECRET_MAX_AGE_MS, a failed re-read keeping the last value and a failed first read
 * the caller's; and a secret that is not a JSON object refused in one line naming it.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import {
  refreshingSecret,
  SECRET_MAX_AGE_MS,
  secretObject,
} from '../../../lambdas/core/secrets-manager-secret.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cache-AbCdEf';

describe('refreshingSecret', () => {
  it('reads once, then again only when asked past the maximum age', async () => {
    let nowMs = 0;
    const reads: number[] = [];
    const secret = refreshingSecret(
      async () => {
        reads.push(nowMs);
        return `password-${reads.length}`;
      },
      () => nowMs,
    );

    expect(await secret()).toBe('password-1');
    nowMs = SECRET_MAX_AGE_MS;
    expect(await secret()).toBe('password-1');
    nowMs = SECRET_MAX_AGE_MS + 1;
    expect(await secret()).toBe('password-2');
    expect(reads).toEqual([0, SECRET_MAX_AGE_MS + 1]);
  });

  it('keeps the last value when a re-read fails, and tries again at the next ask', async () => {
    let nowMs = 0;
    let failing = false;
    let reads = 0;
    const secret = refreshingSecret(
      async () => {
        reads += 1;
        if (failing) throw new Error('ThrottlingException');
        return `password-${reads}`;
      },
      () => nowMs,
    );
    await secret();
    failing = true;
    nowMs = SECRET_MAX_AGE_MS + 1;

    expect(await secret()).toBe('password-1');
    failing = false;
    expect(await secret()).toBe('password-3');
  });

  it('leaves a failed first read to the caller, who reads again next time', async () => {
    let reads = 0;
    const secret = refreshingSecret(async () => {
      reads += 1;
      if (reads === 1) throw new Error('AccessDeniedException');
      return 'password';
    });

    await expect(secret()).rejects.toThrow('AccessDeniedException');
    expect(await secret()).toBe('password');
  });
});

describe('secretObject', () => {
  it('parses a JSON object, and refuses other text naming the secret and the shape', () => {
    expect(secretObject(ARN, '{"password":"p"}', 'JSON with a password')).toEqual({ password: 'p' });
    for (const text of ['not json', '"p"', '[]', 'null']) {
      expect(() => secretObject(ARN, text, 'JSON with a password')).toThrow(ConfigError);
      expect(() => secretObject(ARN, text, 'JSON with a password')).toThrow(
        `the secret ${ARN} is not JSON with a password`,
      );
    }
  });
});
