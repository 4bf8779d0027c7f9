/**
 * The soak's store port on Postgres: each execution environment gets `postgresInbox({ pool })` over a pool
 * of its own (postgres-connections.ts) whose connections meet the schedule's faults
 * (postgres-fault-injection.ts), the sample's effect as SQL (sample/order-consumer/order-placed-sql.ts),
 * and the end state read back from the inbox, quarantine and sample tables.
 */
import { INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import type { ConnectionSource } from '../../lambdas/postgres/connection.js';
import { postgresInbox } from '../../lambdas/postgres/index.js';
import { keyOfStored, storedKey } from '../../lambdas/postgres/sql-text.js';
import { orderSqlConsumer } from '../../sample/order-consumer/order-placed-sql.js';
import type { Journal } from './journal.js';
import { faultInjectingPool } from './postgres-fault-injection.js';
import type { PostgresSoakTarget } from './schedule-result.js';
import type {
  SeededInboxRow,
  SoakStore,
  StoredState,
  StoredStateQuery,
  StoreMutation,
} from './soak-store.js';

export function postgresSoakStore(
  target: PostgresSoakTarget,
  journal: Journal,
  mutation: StoreMutation | undefined,
): SoakStore {
  const { connections, inboxSchema, appSchema } = target;
  const pools = new Set<ConnectionSource>();
  return {
    kind: 'postgres',
    container(_consumer, partitionConcurrency) {
      const pool = faultInjectingPool(connections.environmentPool(partitionConcurrency), {
        journal,
        target,
        mutation,
      });
      pools.add(pool);
      return {
        consumer: orderSqlConsumer(appSchema),
        storeOptions: { store: postgresInbox({ pool, settings: { schema: inboxSchema } }) },
        settings: {},
        retire: async () => {
          pools.delete(pool);
          await pool.end();
        },
      };
    },
    async seed(consumer: string, row: SeededInboxRow) {
      await connections.query(
        `INSERT INTO ${inboxSchema}.inbox
  (consumer, dedup_key, status, payload_hash, source, expires_at, lease_owner, lease_until)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          consumer,
          storedKey(row.dedupKey),
          row.status,
          row.payload_hash,
          row.source,
          row.expires_at,
          row.lease_owner ?? null,
          row.lease_until ?? null,
        ],
      );
    },
    async read(query: StoredStateQuery): Promise<StoredState> {
      const inbox = await connections.query(
        `SELECT dedup_key, status, payload_hash FROM ${inboxSchema}.inbox
  WHERE consumer = $1 AND dedup_key = ANY($2)`,
        [query.consumer, query.dedupKeys.map(storedKey)],
      );
      const quarantine = await connections.query(
        `SELECT quarantine_key FROM ${inboxSchema}.quarantine WHERE consumer = $1 AND status = $2`,
        [query.consumer, INBOX_STATUS.quarantined],
      );
      const orders = await connections.query(
        `SELECT order_id, total FROM ${appSchema}.orders WHERE order_id = ANY($1)`,
        [query.orderIds],
      );
      const accounts = await connections.query(
        `SELECT account_id, balance FROM ${appSchema}.accounts WHERE account_id = ANY($1)`,
        [query.accountIds],
      );
      const quarantined = new Set(quarantine.rows.map((row) => keyOfStored(String(row.quarantine_key))));
      return {
        dedupRows: new Map(
          inbox.rows.map((row) => [
            keyOfStored(String(row.dedup_key)),
            { status: String(row.status), payloadHash: String(row.payload_hash) },
          ]),
        ),
        quarantined: new Set(
          query.quarantinedCoordinates.filter((coordinates) => quarantined.has(coordinates)),
        ),
        // bigint columns come back as text.
        orderTotals: new Map(orders.rows.map((row) => [String(row.order_id), Number(row.total)])),
        balances: new Map(accounts.rows.map((row) => [String(row.account_id), Number(row.balance)])),
      };
    },
    async close() {
      await Promise.all([...pools].map((pool) => pool.end()));
      pools.clear();
    },
  };
}
