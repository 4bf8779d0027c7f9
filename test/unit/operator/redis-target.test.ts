/**
 * Which Redis inbox the operator's flags, the stack and the variables name (operator-target.ts, redisOf):
 * a flag wins, then the stack, then the variables; a mistake is one line with its fix. And what the tool
 * tells a person of the server's refusals (redis-target.ts), and passes a consumer run here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../operator/cli/user-error.js';
import { redisOf } from '../../../operator/operator-target.js';
import type { NamedRedis } from '../../../operator/redis-flags.js';
import { type RedisConnection, redisConnection } from '../../../operator/redis-target.js';
import type { StackOutputs } from '../../../operator/stack-outputs.js';

const URL_FLAG = { redis: 'redis://127.0.0.1:6379' };
const CACHE = { REDIS_HOST: 'cache.example', REDIS_PORT: '6380' };

describe('redisOf', () => {
  it('takes --redis over every variable, and the variables where no flag or stack names an inbox', () => {
    expect(redisOf(URL_FLAG, undefined, CACHE)).toMatchObject({
      namedBy: 'flag',
      settings: { url: 'redis://127.0.0.1:6379' },
    });
    expect(redisOf({}, undefined, CACHE)).toMatchObject({
      namedBy: 'variables',
      settings: { url: '', host: 'cache.example', port: 6380, tls: 'on', cluster: 'off' },
    });
    expect(redisOf({}, undefined, {})).toBeUndefined();
  });

  it('leaves the inbox to a --table or --postgres flag, or a stack that names one, over the variables', () => {
    const stack = (outputs: Partial<StackOutputs>): StackOutputs => ({
      stackName: 'S',
      postgres: {},
      ...outputs,
    });
    expect(redisOf({ table: 'inbox' }, undefined, CACHE)).toBeUndefined();
    expect(redisOf({ postgres: 'postgres://db/app' }, undefined, CACHE)).toBeUndefined();
    expect(redisOf({}, stack({ inboxTableName: 'inbox' }), CACHE)).toBeUndefined();
    expect(redisOf({}, stack({ postgres: { host: 'db' } }), CACHE)).toBeUndefined();
    expect(redisOf({}, stack({}), CACHE)).toMatchObject({ namedBy: 'variables' });
  });

  it('refuses two inboxes, another store’s flags and bad settings, each in one line with its fix', () => {
    const refusals: [Record<string, string>, NodeJS.ProcessEnv, string][] = [
      [{ ...URL_FLAG, table: 'inbox' }, {}, '--redis or --table, not both: the inbox is in one of them'],
      [
        { ...URL_FLAG, postgres: 'postgres://db' },
        {},
        '--redis or --postgres, not both: the inbox is in one of them',
      ],
      [{ ...URL_FLAG, schema: 'app' }, {}, '--schema goes with --postgres URL, not a Redis inbox'],
      [
        { ...URL_FLAG, endpoint: 'http://127.0.0.1:8000' },
        {},
        "--endpoint is DynamoDB's: a Redis inbox is reached through --redis URL (or the REDIS_* variables)",
      ],
      [
        { redis: 'cache:6379' },
        {},
        '--redis cache:6379 is not a redis:// URL: e.g. redis://127.0.0.1:6379 (rediss:// for TLS)',
      ],
      [
        {},
        { ...CACHE, INBOX_TABLE_NAME: 'inbox' },
        'INBOX_TABLE_NAME and REDIS_HOST are both set: which inbox? pass --table NAME or --redis URL',
      ],
    ];
    for (const [values, env, line] of refusals) {
      expect(() => redisOf(values, undefined, env)).toThrow(new UserError(line));
    }
    // The problem's own words are the settings' (redis-settings.ts).
    expect(() => redisOf({}, undefined, { REDIS_HOST: 'cache.example', REDIS_TLS: 'yes' })).toThrow(
      /^the REDIS_\* variables do not name a server \(REDIS_TLS "yes" [^)]*\): fix them, or pass --redis URL$/,
    );
  });
});

describe('redisConnection', () => {
  const opened: RedisConnection[] = [];
  const connect = (named: NamedRedis) => {
    const connection = redisConnection(named);
    opened.push(connection);
    return connection;
  };
  afterEach(() => {
    for (const connection of opened.splice(0)) connection.client.disconnect();
  });
  const fromVariables = () => {
    const named = redisOf({}, undefined, { ...CACHE, REDIS_TLS: 'off' });
    if (named === undefined) throw new Error('the variables name a server');
    return connect(named);
  };

  it('tells the server’s refusals in one line naming the fix; others are not a person’s to fix', () => {
    const connection = fromVariables();
    const adviceOf = (message: string, code?: string) =>
      connection.advice(Object.assign(new Error(message), code === undefined ? {} : { code }))?.message;
    expect(adviceOf('connect ECONNREFUSED 10.0.0.1:6380', 'ECONNREFUSED')).toBe(
      'nothing answers at cache.example:6380 (ECONNREFUSED): is the server running? check REDIS_HOST and REDIS_PORT',
    );
    expect(adviceOf('WRONGPASS invalid username-password pair or user is disabled.')).toBe(
      'the server at cache.example:6380 refused the login (WRONGPASS invalid username-password pair or user is disabled.): check the user and password',
    );
    expect(adviceOf("NOPERM User ops has no permissions to run the 'evalsha' command")).toMatch(
      /^not allowed: NOPERM .*: grant the user the commands and keys in docs\/redis\.md#the-operator-on-redis$/,
    );
    expect(adviceOf('MOVED 3999 10.0.0.2:6380')).toBe(
      'cache.example:6380 is a cluster (MOVED 3999 10.0.0.2:6380): set REDIS_CLUSTER=on with REDIS_HOST and REDIS_PORT, as the function has them',
    );
    expect(adviceOf('Command timed out')).toMatch(/^no answer from cache\.example:6380 within 10 s: /);
    expect(adviceOf('LOADING Redis is loading the dataset in memory')).toBe(
      'the server at cache.example:6380 is loading its data: run the command again in a moment',
    );
    expect(adviceOf('ERR Error running script')).toBeUndefined();
  });

  it('passes a consumer run here the settings it connected with, and names what a function’s must match', () => {
    const variables = fromVariables();
    expect(variables.handlerVariables).toEqual({
      REDIS_HOST: 'cache.example',
      REDIS_PORT: '6380',
      REDIS_TLS: 'off',
      REDIS_CLUSTER: 'off',
      // The login settings' defaults: no login, as the tool connected.
      REDIS_AUTH: 'none',
      REDIS_CACHE_KIND: 'serverless',
    });
    expect(variables.namedBy).toEqual({ REDIS_HOST: '$REDIS_HOST', REDIS_PORT: '$REDIS_PORT' });
    const named = redisOf(URL_FLAG, undefined, {});
    if (named === undefined) throw new Error('the flag names a server');
    const flag = connect(named);
    expect(flag.handlerVariables).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(flag.namedBy).toEqual({ REDIS_URL: '--redis' });
    expect(flag.where).toBe('127.0.0.1:6379');
  });
});
