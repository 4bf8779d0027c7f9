/**
 * The soak's store port on Redis, for the side-effect schedules only (store-faults.ts#STORE_MODES): each
 * execution environment gets `redisInbox({ client })` over an ioredis client of its own, made as the
 * deployed one is, whose commands meet the schedule's faults (redis-fault-injection.ts); keys are named
 * as the store names them (lambdas/redis/redis-keys.ts), and the end state is read back by the soak's own
 * client.
 */
import { Redis } from 'ioredis';
import { dedupRowKey } from '../../lambdas/core/inbox-rows.js';
import { redisInbox } from '../../lambdas/redis/index.js';
import type { StoredRow } from '../../lambdas/redis/redis-inbox-store.js';
import { redisDedupRowKey, redisQuarantineEntryKey } from '../../lambdas/redis/redis-keys.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import type { Journal } from './journal.js';
import { faultInjectingRedis } from './redis-fault-injection.js';
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
 * The options redisInbox() gives the client it makes from REDIS_URL (lambdas/redis/index.ts#clientOf):
 * connected at the first command, one resend after a lost connection, a command failed after 5 s.
 */
export const DEPLOYED_CLIENT_OPTIONS = {
  lazyConnect: true,
  commandTimeout: 5_000,
  maxRetriesPerRequest: 1,
} as const;

/**
 * The sample's order effect is a DynamoDB plan: the side-effect schedules turn it into the external call
 * (consumer-under-test.ts), so this table is never written (and the Redis store would refuse the plan).
 */
const NO_APP_TABLE = 'side-effect-mode-writes-no-table';

export function redisSoakStore(
  target: RedisSoakTarget,
  journal: Journal,
  mutation: StoreMutation | undefined,
): SoakStore {
  const clients = new Set<Redis>();
  return {
    kind: 'redis',
    container(consumer) {
      const client = new Redis(target.url, DEPLOYED_CLIENT_OPTIONS);
      // A lost connection is an 'error' event besides the failed command; the command's failure is what counts.
      client.on('error', () => undefined);
      clients.add(client);
      const store = redisInbox({
        client: faultInjectingRedis(client, {
          journal,
          target,
          mutation,
          pkOf: journalKeyOf(consumer),
          resends: DEPLOYED_CLIENT_OPTIONS.maxRetriesPerRequest,
        }),
      });
      return {
        consumer: orderConsumer(NO_APP_TABLE),
        storeOptions: { sideEffectStore: store },
        settings: {},
        retire: async () => {
          clients.delete(client);
          client.disconnect();
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
      for (const client of clients) client.disconnect();
      clients.clear();
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
