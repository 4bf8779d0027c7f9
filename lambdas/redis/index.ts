/**
 * `msk-inbox/redis`: MSK Inbox on Redis or Valkey (docs/redis.md), for the side-effect mode:
 * `createInboxConsumer({ store: redisInbox(), effect: () => ({ kind: 'call', run }) })`. An entry of its
 * own, so a consumer on DynamoDB or Postgres bundles no Redis client.
 */
import { Cluster, Redis } from 'ioredis';
import { type SideEffectStoreChoice, sideEffectStoreChoice } from '../core/store-choice.js';
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
 * A command that cannot be sent within this is failed (the record is reported and retried), rather than
 * queued for ever while the server is away.
 */
const COMMAND_TIMEOUT_MS = 5_000;

/**
 * The Redis store for `createInboxConsumer({ store })`: read at cold start, connected at the first record.
 * Its consumer's effect may only `call` or `skip` (SideEffectStoreChoice).
 */
export function redisInbox(options: RedisInboxOptions = {}): SideEffectStoreChoice {
  return sideEffectStoreChoice('redis', REDIS_CANNOT_COMMIT, {
    create(context) {
      const client = options.client ?? clientOf(readRedisSettings(options.settings ?? {}, process.env));
      return new RedisInboxStore({
        client,
        consumer: context.consumer,
        ttlSeconds: context.ttlSeconds,
        clock: context.clock,
      });
    },
  });
}

function clientOf(settings: RedisSettings): RedisScripting {
  const common = { lazyConnect: true, commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1 };
  if (settings.url !== '') return new Redis(settings.url, common);
  const tls = settings.tls === 'on' ? { tls: { servername: settings.host } } : {};
  if (settings.cluster === 'on') {
    return new Cluster([{ host: settings.host, port: settings.port }], {
      // ElastiCache's cluster endpoints answer with node addresses that need the same TLS name.
      dnsLookup: (address, callback) => callback(null, address),
      redisOptions: { ...common, ...tls },
    });
  }
  return new Redis({ host: settings.host, port: settings.port, ...common, ...tls });
}

export type { SettingValue } from '../core/settings.js';
export type { SideEffectStoreChoice } from '../core/store-choice.js';
export { REDIS_QUARANTINE_CAP, type RedisScripting } from './redis-inbox-store.js';
export { REDIS_SETTINGS, type RedisSettingName, type RedisSettings } from './redis-settings.js';
