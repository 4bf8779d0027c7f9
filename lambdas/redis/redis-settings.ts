/**
 * How a consumer reaches its Redis or Valkey, described once: each setting's environment variable,
 * default and meaning; `redisInbox()` reads them at cold start (docs/redis.md). No password travels in a
 * variable: `url` is for servers here, whose URL names no secret.
 */
import { ConfigError } from '../core/errors.js';
import { readSettingsTable, type SettingDefinition, type SettingValue } from '../core/settings.js';

export const REDIS_SETTINGS = {
  url: {
    env: 'REDIS_URL',
    kind: 'text',
    pattern: /^rediss?:\/\/[^\s]+$/,
    patternHint: 'must be redis://host:port (or rediss:// with TLS)',
    meaning: 'the server as a URL (a server here); otherwise REDIS_HOST and REDIS_PORT',
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
} as const satisfies Record<string, SettingDefinition>;

export type RedisSettingName = keyof typeof REDIS_SETTINGS;

export type RedisSettings = { readonly [K in RedisSettingName]: SettingValue<(typeof REDIS_SETTINGS)[K]> };

/** The settings given in code over the environment's, checked; one ConfigError names every problem. */
export function readRedisSettings(
  given: Partial<RedisSettings>,
  env: Readonly<Record<string, string | undefined>>,
): RedisSettings {
  const problems: string[] = [];
  const values = readSettingsTable(REDIS_SETTINGS, given, env, problems);
  if (values.url === '' && values.host === '') {
    problems.push(`${REDIS_SETTINGS.host.env} (or ${REDIS_SETTINGS.url.env}) is required`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values;
}
