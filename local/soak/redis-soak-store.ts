/**
 * The soak's store port on Redis, for the side-effect schedules only (store-faults.ts#STORE_MODES): each
 * execution environment gets `redisInbox({ client })` over the schedule's client (RedisClientKind): the
 * connection redisInbox() makes from REDIS_URL (lambdas/redis/redis-client.ts: its clients, their
 * options, their replacement), or an ioredis client of the team's own with ioredis's defaults. Their
 * commands meet the schedule's faults (redis-fault-injection.ts); keys are named as the store names them
 * (lambdas/redis/redis-keys.ts), and the end state is read back by the soak's own client.
 */
import { Redis } from 'ioredis';
import { dedupRowKey } from '../../lambdas/core/inbox-rows.js';
import { redisInbox } from '../../lambdas/redis/index.js';
import { connectionOptions } from '../../lambdas/redis/redis-client.js';
import { RedisConnection } from '../../lambdas/redis/redis-connection.js';
import type { RedisScripting, StoredRow } from '../../lambdas/redis/redis-inbox-store.js';
import { redisDedupRowKey, redisQuarantineEntryKey } from '../../lambdas/redis/redis-keys.js';
import { readRedisSettings } from '../../lambdas/redis/redis-settings.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import type { Journal } from './journal.js';
import { faultInjectingClient, type RedisFaultOptions } from './redis-fault-injection.js';
import type { RedisClientKind } from './schedule.js';
import { DEDUP_TTL_SECONDS } from './schedule.js';
import type { RedisSoakTarget } from './schedule-result.js';
import type {
  SeededInboxRow,
  SoakStore,
  StoredState,
  StoredStateQuery,
  StoreMutation,
} from './soak-store.js';

/**
 * The sample's order effect is a DynamoDB plan: the side-effect schedules turn it into the external call
 * (consumer-under-test.ts), so this table is never written (and the Redis store would refuse the plan).
 */
const NO_APP_TABLE = 'side-effect-mode-writes-no-table';

export function redisSoakStore(
  target: RedisSoakTarget,
  journal: Journal,
  mutation: StoreMutation | undefined,
  clientKind: RedisClientKind,
): SoakStore {
  const ends = new Set<() => Promise<void>>();
  return {
    kind: 'redis',
    container(consumer) {
      const faults = { journal, target, mutation, pkOf: journalKeyOf(consumer) };
      const { client, end } =
        clientKind === 'settings' ? settingsConnection(target, faults) : ownClient(target, faults);
      ends.add(end);
      return {
        consumer: orderConsumer(NO_APP_TABLE),
        storeOptions: { sideEffectStore: redisInbox({ client }) },
        settings: {},
        retire: async () => {
          ends.delete(end);
          await end();
        },
      };
    },
    async seed(consumer: string, row: SeededInboxRow) {
      const stored: StoredRow = {
        s: row.status as StoredRow['s'],
        h: row.payload_hash,
        src: row.source,
        exp: String(row.expires_at),
        ...(row.lease_owner === undefined ? {} : { lo: row.lease_owner }),
        ...(row.lease_until === undefined ? {} : { lu: String(row.lease_until) }),
      };
      // Kept for the whole run: Redis deletes by wall-clock time, the rows' windows are the schedule's
      // virtual time (an expired row not yet deleted is what the store must count as absent).
      await target.harness.set(
        redisDedupRowKey(consumer, row.dedupKey),
        JSON.stringify(stored),
        'PX',
        DEDUP_TTL_SECONDS * 1_000,
      );
    },
    async read(query: StoredStateQuery): Promise<StoredState> {
      const { consumer } = query;
      const dedupRows = new Map<string, { status: string; payloadHash: string }>();
      for (const dedupKey of query.dedupKeys) {
        const stored = await target.harness.get(redisDedupRowKey(consumer, dedupKey));
        if (stored === null) continue;
        const row = JSON.parse(stored) as StoredRow;
        dedupRows.set(dedupKey, { status: row.s, payloadHash: row.h });
      }
      const quarantined = new Set<string>();
      for (const coordinates of query.quarantinedCoordinates) {
        const entry = await target.harness.exists(redisQuarantineEntryKey(consumer, coordinates));
        if (entry === 1) quarantined.add(coordinates);
      }
      // The side-effect mode writes no order or balance: its effects are the external ledger's.
      return { dedupRows, quarantined, orderTotals: new Map(), balances: new Map() };
    },
    async close() {
      await Promise.all([...ends].map((end) => end()));
      ends.clear();
    },
  };
}

interface EnvironmentClient {
  readonly client: RedisScripting;
  end(): Promise<void>;
}

/** The connection redisInbox() makes from REDIS_URL, each client it makes meeting the faults. */
function settingsConnection(target: RedisSoakTarget, faults: RedisFaultOptions): EnvironmentClient {
  // The REDIS_* settings of a server here, not this machine's environment.
  const deployed = connectionOptions(readRedisSettings({ url: target.url }, {}));
  const connection = new RedisConnection({
    ...deployed,
    clientFor: (login) => {
      const client = deployed.clientFor(login);
      // A URL names one node: the client is a Redis, whose socket a fault can cut.
      if (!(client instanceof Redis)) throw new Error('a URL makes a single-node client');
      return faultInjectingClient(client, faults);
    },
  });
  return { client: connection, end: () => connection.end() };
}

/** `redisInbox({ client: new Redis(url) })`: ioredis's defaults, reconnecting and resending by itself. */
function ownClient(target: RedisSoakTarget, faults: RedisFaultOptions): EnvironmentClient {
  const client = new Redis(target.url);
  // A lost connection is an 'error' event besides the failed command: the command's failure is what counts.
  client.on('error', () => undefined);
  return {
    client: faultInjectingClient(client, faults),
    end: async () => {
      client.disconnect();
    },
  };
}

/** From a row's Redis key back to its dedup key, by the store's own naming: the journal's name for it. */
function journalKeyOf(consumer: string): (rowKey: string) => string | undefined {
  const marker = '\u0000';
  const [before = '', after = ''] = redisDedupRowKey(consumer, marker).split(marker);
  return (rowKey) =>
    rowKey.startsWith(before) && rowKey.endsWith(after)
      ? dedupRowKey(consumer, rowKey.slice(before.length, rowKey.length - after.length))
      : undefined;
}
