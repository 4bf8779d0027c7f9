/**
 * The Redis flag of the inbox commands, and what a Redis inbox is named by: apart from redis-target.ts
 * so a command on another inbox (or `--help`) never loads the ioredis client.
 */
import { REDIS_SETTINGS, type RedisSettings } from '../lambdas/redis/redis-settings.js';

export const REDIS_FLAGS = { redis: { type: 'string' } } as const;

const S = REDIS_SETTINGS;

export const REDIS_HELP = `  --redis URL       a Redis or Valkey inbox (the side-effect mode, docs/redis.md): redis://host:6379
                    (rediss:// for TLS); instead of --table. Without it, the function's variables
                    (${S.url.env}, or ${S.host.env} with ${S.port.env}, ${S.tls.env}, ${S.cluster.env}) name it`;

/** The settings of a Redis inbox, and whether `--redis` or the variables named them (for the fixes). */
export interface NamedRedis {
  readonly settings: RedisSettings;
  readonly namedBy: 'flag' | 'variables';
}
