/** readPostgresSettings: code over environment, each value checked, what each kind of authentication needs. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { readPostgresSettings } from '../../../lambdas/postgres/postgres-settings.js';

function problemsOf(read: () => unknown): readonly string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readPostgresSettings', () => {
  it.each([
    ['iam', ['POSTGRES_HOST', 'POSTGRES_DATABASE', 'POSTGRES_USER']],
    ['secret', ['POSTGRES_HOST', 'POSTGRES_DATABASE', 'POSTGRES_SECRET_ARN']],
    ['url', ['POSTGRES_URL']],
  ])('with POSTGRES_AUTH=%s requires what it connects with, and names each', (auth, required) => {
    expect(problemsOf(() => readPostgresSettings({}, { POSTGRES_AUTH: auth }))).toEqual(
      required.map((name) => `${name} is required with POSTGRES_AUTH=${auth}`),
    );
  });

  it('defaults to iam authentication', () => {
    expect(problemsOf(() => readPostgresSettings({}, {}))).toEqual([
      'POSTGRES_HOST is required with POSTGRES_AUTH=iam',
      'POSTGRES_DATABASE is required with POSTGRES_AUTH=iam',
      'POSTGRES_USER is required with POSTGRES_AUTH=iam',
    ]);
  });

  it('takes each authentication with exactly what it requires, the rest defaulted', () => {
    expect(
      readPostgresSettings(
        {},
        { POSTGRES_HOST: 'proxy.example', POSTGRES_DATABASE: 'shop', POSTGRES_USER: 'app' },
      ),
    ).toEqual({
      host: 'proxy.example',
      port: 5432,
      database: 'shop',
      user: 'app',
      auth: 'iam',
      secretArn: '',
      url: '',
      tls: 'verify-full',
      schema: 'msk_inbox',
      poolMax: 0,
      idleTimeoutMs: 60_000,
      statementTimeoutMs: 10_000,
      outboxNotify: 'on',
    });
    expect(
      readPostgresSettings(
        {},
        {
          POSTGRES_AUTH: 'secret',
          POSTGRES_HOST: 'proxy.example',
          POSTGRES_DATABASE: 'shop',
          POSTGRES_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:db',
        },
      ),
    ).toMatchObject({ auth: 'secret', user: '' });
    expect(readPostgresSettings({ auth: 'url', url: 'postgres://localhost/shop' }, {})).toMatchObject({
      auth: 'url',
      url: 'postgres://localhost/shop',
    });
  });

  it('names every problem in one ConfigError: bad values and what the authentication lacks', () => {
    const problems = problemsOf(() =>
      readPostgresSettings(
        {},
        {
          POSTGRES_AUTH: 'secret',
          POSTGRES_PORT: '0',
          POSTGRES_TLS: 'maybe',
          POSTGRES_SCHEMA: 'Bad-Name',
          POSTGRES_POOL_MAX: 'x',
          POSTGRES_STATEMENT_TIMEOUT_MS: '50',
        },
      ),
    );

    expect(problems).toEqual([
      'POSTGRES_PORT "0" must be a whole number from 1 to 65535',
      'POSTGRES_TLS "maybe" must be one of: verify-full, require, disable',
      'POSTGRES_SCHEMA "Bad-Name" must be a lower-case SQL identifier: letters, digits and underscores, 63 at most',
      'POSTGRES_POOL_MAX "x" must be a whole number from 0 to 100',
      'POSTGRES_STATEMENT_TIMEOUT_MS "50" must be a whole number from 100 to 900000',
      'POSTGRES_HOST is required with POSTGRES_AUTH=secret',
      'POSTGRES_DATABASE is required with POSTGRES_AUTH=secret',
      'POSTGRES_SECRET_ARN is required with POSTGRES_AUTH=secret',
    ]);
  });

  it('refuses an unknown authentication by name', () => {
    expect(problemsOf(() => readPostgresSettings({ auth: 'kerberos' as never, url: 'x' }, {}))).toContain(
      'POSTGRES_AUTH "kerberos" must be one of: iam, secret, url',
    );
  });

  it('takes settings in code over the environment, checked alike', () => {
    const settings = readPostgresSettings(
      { auth: 'url', url: 'postgres://code/db', poolMax: 3, schema: 'inbox_code' },
      {
        POSTGRES_AUTH: 'iam',
        POSTGRES_URL: 'postgres://env/db',
        POSTGRES_POOL_MAX: '9',
        POSTGRES_PORT: '6432',
      },
    );

    expect(settings).toMatchObject({
      auth: 'url',
      url: 'postgres://code/db',
      poolMax: 3,
      schema: 'inbox_code',
      port: 6432,
    });
    expect(
      problemsOf(() => readPostgresSettings({ auth: 'url', url: 'x', statementTimeoutMs: 99 }, {})),
    ).toEqual(['POSTGRES_STATEMENT_TIMEOUT_MS "99" must be a whole number from 100 to 900000']);
  });

  it('requires nothing to connect with when the consumer gives a pool of its own, and still checks the values', () => {
    expect(readPostgresSettings({ schema: 'inbox_code' }, {}, { ownPool: true })).toMatchObject({
      auth: 'iam',
      host: '',
      schema: 'inbox_code',
    });
    expect(
      problemsOf(() => readPostgresSettings({}, { POSTGRES_SCHEMA: 'Bad-Name' }, { ownPool: true })),
    ).toEqual([
      'POSTGRES_SCHEMA "Bad-Name" must be a lower-case SQL identifier: letters, digits and underscores, 63 at most',
    ]);
  });
});
