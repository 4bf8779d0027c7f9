/**
 * `npm start -- --store redis`: the sample notification consumer (sample/notification-consumer/), the
 * side-effect mode, with its inbox in a throwaway Debian redis-server (local/redis/redis-server.ts) and
 * its calls going to a receiver in this process (notification-receiver.ts). What it leaves is read here:
 * the calls per Idempotency-Key at the receiver, the Redis rows and the quarantine entries.
 */
import { Redis } from 'ioredis';
import { systemClock } from '../../lambdas/core/clock.js';
import { INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import { RedisInboxStore, readRedisDedupRow } from '../../lambdas/redis/redis-inbox-store.js';
import { REDIS_SETTINGS } from '../../lambdas/redis/redis-settings.js';
import { NOTIFICATION_CONSUMER_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { NOTIFICATION_URL_SETTING } from '../../sample/notification-consumer/order-notification.js';
import { type RunningRedis, startRedisServer } from '../redis/redis-server.js';
import type { DemoState } from './demo-state.js';
import { type NotificationReceiver, startNotificationReceiver } from './notification-receiver.js';

export const NOTIFICATION_CONSUMER_NAME = 'notification-consumer';

/** The sample's Redis entry, as build-bundles.ts takes it. */
export const REDIS_BUNDLE = { entry: NOTIFICATION_CONSUMER_ENTRY, name: NOTIFICATION_CONSUMER_NAME } as const;

export interface DemoRedis {
  readonly redis: RunningRedis;
  readonly receiver: NotificationReceiver;
  stop(): Promise<void>;
}

/** The server and the receiver; without redis-server, the one-line UserError saying how to get it. */
export async function startDemoRedis(): Promise<DemoRedis> {
  const redis = await startRedisServer();
  try {
    const receiver = await startNotificationReceiver();
    return {
      redis,
      receiver,
      stop: async () => {
        await Promise.all([receiver.close(), redis.stop()]);
      },
    };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}

/** The function's REDIS_* settings (lambdas/redis/redis-settings.ts) and where its notifications go. */
export function redisFunctionEnvironment(demo: DemoRedis): Record<string, string> {
  return { [REDIS_SETTINGS.url.env]: demo.redis.url, [NOTIFICATION_URL_SETTING]: demo.receiver.url };
}

/**
 * The state verify.ts judges. Redis is asked through the store's own key names: its rows by a SCAN of
 * the consumer's row keys, and `isQuarantined` for each record's coordinates (poison or not), which
 * tells where an entry is but not its reason.
 */
export async function readDemoRedisState(
  demo: DemoRedis,
  consumerName: string,
  coordinates: readonly string[],
): Promise<DemoState> {
  const client = new Redis(demo.redis.url, { lazyConnect: true });
  try {
    // Only the key names are used: no record is claimed or quarantined here.
    const store = new RedisInboxStore({ client, consumer: consumerName, ttlSeconds: 0, clock: systemClock });
    // A dedup key of `*` makes the row key a SCAN pattern for every row of the consumer.
    const rowKeys: string[] = [];
    for await (const keys of client.scanStream({ match: store.rowKey('*'), count: 1_000 })) {
      rowKeys.push(...(keys as string[]));
    }
    const rows = rowKeys.length === 0 ? [] : await client.mget(rowKeys);
    const completedRows = rows.filter(
      (row) => row !== null && readRedisDedupRow(row).status === INBOX_STATUS.completed,
    ).length;
    const quarantinedFlags = await Promise.all(coordinates.map((c) => store.isQuarantined(c)));
    return {
      effects: { kind: 'calls', callsByKey: new Map(demo.receiver.callsByKey) },
      completedRows,
      quarantined: new Map(
        coordinates.filter((_, index) => quarantinedFlags[index]).map((c) => [c, undefined] as const),
      ),
    };
  } finally {
    client.disconnect();
  }
}
