/**
 * `msk-inbox/redis`: MSK Inbox on Redis or Valkey (docs/redis.md), for the side-effect mode:
 * `createInboxConsumer({ store: redisInbox(), effect: () => ({ kind: 'call', run }) })`. An entry of its
 * own, so a consumer on DynamoDB or Postgres bundles no Redis client.
 */
import { type SideEffectStoreChoice, sideEffectStoreChoice } from '../core/store-choice.js';
import { redisConnection } from './redis-client.js';
import { REDIS_CANNOT_COMMIT, RedisInboxStore, type RedisScripting } from './redis-inbox-store.js';
import { type RedisSettings, readRedisSettings } from './redis-settings.js';

/** How `redisInbox()` reaches the server: the REDIS_* settings by default. */
export interface RedisInboxOptions {
  /** Settings in code, over the environment's REDIS_* variables. */
  readonly settings?: Partial<RedisSettings>;
  /** A client of your own (a `Redis` or a `Cluster`): the settings' connection is then not opened. */
  readonly client?: RedisScripting;
}

/**
 * The Redis store for `createInboxConsumer({ store })`: read at cold start, connected (and logged in,
 * docs/redis.md#authentication) at the first record. Its consumer's effect may only `call` or `skip`
 * (SideEffectStoreChoice).
 */
export function redisInbox(options: RedisInboxOptions = {}): SideEffectStoreChoice {
  return sideEffectStoreChoice('redis', REDIS_CANNOT_COMMIT, {
    create(context) {
      const client =
        options.client ?? redisConnection(readRedisSettings(options.settings ?? {}, process.env));
      return new RedisInboxStore({
        client,
        consumer: context.consumer,
        ttlSeconds: context.ttlSeconds,
        clock: context.clock,
      });
    },
  });
}

export type { SettingValue } from '../core/settings.js';
export type { SideEffectStoreChoice } from '../core/store-choice.js';
export { REDIS_QUARANTINE_CAP, type RedisScripting } from './redis-inbox-store.js';
export { REDIS_SETTINGS, type RedisSettingName, type RedisSettings } from './redis-settings.js';
