/**
 * How a consumer reaches its Redis or Valkey, described once: each setting's environment variable,
 * default and meaning; `redisInbox()` reads them at cold start, the KafkaConsumer construct sets them from
 * its `redis` prop (lib/redis-cache.ts), and docs/redis.md's table is written from this one (a test
 * compares them). No cache's password travels in a variable: an IAM token signed per connection, or a
 * Secrets Manager secret (docs/redis.md#authentication); `url` is for servers here.
 */
import { ConfigError } from '../core/errors.js';
import { readSettingsTable, type SettingDefinition, type SettingValue } from '../core/settings.js';

export const REDIS_SETTINGS = {
  url: {
    env: 'REDIS_URL',
    kind: 'text',
    pattern: /^rediss?:\/\/[^\s]+$/,
    patternHint: 'must be redis://host:port (or rediss:// with TLS)',
    meaning:
      'the server as a URL (a server here; a password, if any, in the URL); otherwise REDIS_HOST and REDIS_PORT',
  },
  host: { env: 'REDIS_HOST', kind: 'text', meaning: "the cache's endpoint (ElastiCache, MemoryDB)" },
  port: { env: 'REDIS_PORT', kind: 'integer', default: 6379, min: 1, max: 65_535, meaning: 'its port' },
  tls: {
    env: 'REDIS_TLS',
    kind: 'choice',
    default: 'on',
    choices: ['on', 'off'],
    meaning: '`on`: TLS, the server certificate checked (ElastiCache Serverless and MemoryDB require it)',
  },
  cluster: {
    env: 'REDIS_CLUSTER',
    kind: 'choice',
    default: 'off',
    choices: ['on', 'off'],
    meaning: '`on`: cluster mode (hash slots); every key of one event shares a slot',
  },
  auth: {
    env: 'REDIS_AUTH',
    kind: 'choice',
    default: 'none',
    choices: ['none', 'iam', 'secret'],
    meaning:
      '`none`: no login; `iam`: an IAM token signed for each connection, as `REDIS_USER` on `REDIS_CACHE_NAME` (TLS only); `secret`: the password (and user) of the Secrets Manager secret `REDIS_SECRET_ARN`',
  },
  user: {
    env: 'REDIS_USER',
    kind: 'text',
    meaning:
      'with `iam`: the IAM-enabled user (ElastiCache: its user id, which IAM requires to equal its name; MemoryDB: its name)',
  },
  cacheName: {
    env: 'REDIS_CACHE_NAME',
    kind: 'text',
    pattern: /^[a-z][a-z0-9-]{0,39}$/,
    patternHint:
      'must be the cache’s name as AWS keeps it: up to 40 lower-case letters, digits and hyphens, from a letter',
    meaning:
      'with `iam`: the cache the token is for: the serverless cache’s name, the replication group’s id, or the MemoryDB cluster’s name',
  },
  cacheKind: {
    env: 'REDIS_CACHE_KIND',
    kind: 'choice',
    default: 'serverless',
    choices: ['serverless', 'node-based', 'memorydb'],
    meaning:
      'with `iam`: what `REDIS_CACHE_NAME` names, which the token is signed for: an ElastiCache Serverless cache, a node-based ElastiCache replication group, or a MemoryDB cluster',
  },
  secretArn: {
    env: 'REDIS_SECRET_ARN',
    kind: 'text',
    meaning:
      'with `secret`: a secret whose JSON has `password` and, for a user other than `default`, `username` (the shape ElastiCache’s password rotation keeps)',
  },
} as const satisfies Record<string, SettingDefinition>;

export type RedisSettingName = keyof typeof REDIS_SETTINGS;

export type RedisSettings = { readonly [K in RedisSettingName]: SettingValue<(typeof REDIS_SETTINGS)[K]> };

/** ElastiCache and MemoryDB take IAM tokens over TLS only: the reason, for the settings and the construct. */
export const IAM_NEEDS_TLS = 'ElastiCache and MemoryDB accept IAM tokens over TLS only';

/** What each kind of login needs besides a host (a URL is for `none` only). */
const REQUIRED_BY_AUTH: Readonly<Record<RedisSettings['auth'], readonly RedisSettingName[]>> = {
  none: [],
  iam: ['user', 'cacheName'],
  secret: ['secretArn'],
};

const variable = (name: RedisSettingName): string => REDIS_SETTINGS[name].env;

/** The settings given in code over the environment's, checked; one ConfigError names every problem. */
export function readRedisSettings(
  given: Partial<RedisSettings>,
  env: Readonly<Record<string, string | undefined>>,
): RedisSettings {
  const problems: string[] = [];
  const values = readSettingsTable(REDIS_SETTINGS, given, env, problems);
  const withAuth = `with ${variable('auth')}=${values.auth}`;
  if (values.url !== '' && values.auth !== 'none') {
    problems.push(
      `${variable('url')} is for a server here, its login (if any) in the URL: ${withAuth}, give ${variable('host')} and ${variable('port')} instead`,
    );
  } else if (values.url === '' && values.host === '') {
    problems.push(`${variable('host')} (or ${variable('url')}) is required`);
  }
  for (const name of REQUIRED_BY_AUTH[values.auth]) {
    // A value given but refused above is named once, by its refusal.
    const refused = problems.some((problem) => problem.startsWith(`${variable(name)} "`));
    if (values[name] === '' && !refused) problems.push(`${variable(name)} is required ${withAuth}`);
  }
  if (values.auth === 'iam' && values.tls === 'off') {
    problems.push(`${variable('tls')}=off ${withAuth}: ${IAM_NEEDS_TLS}; remove ${variable('tls')}=off`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values;
}
