/**
 * The sample's consumer on Postgres (sample/order-consumer/order-placed-sql.ts, `store: postgresInbox`) in
 * its deployed handler chain, as the poison promise checks it: each batch on schemas of its own (the inbox
 * migrated, the sample's tables), outcomes read through its telemetry, state read back from the tables.
 */
import { postgresInbox } from '../../lambdas/postgres/index.js';
import { migrate } from '../../lambdas/postgres/schema.js';
import { storedKey } from '../../lambdas/postgres/sql-text.js';
import { orderSqlConsumer, orderTablesSql } from '../../sample/order-consumer/order-placed-sql.js';
import type { PostgresConnections } from '../soak/postgres-connections.js';
import { observedInvoke } from './order-consumer-under-test.js';
import type { ConsumerUnderTest } from './poison-promise.js';
import type { PoisonBatchStore } from './poison-soak.js';

/** Fresh schemas per batch, dropped after it. `runId`: lower-case letters and digits. */
export function postgresPoisonStore(connections: PostgresConnections, runId: string): PoisonBatchStore {
  return {
    async open(index) {
      const inboxSchema = `poison_inbox_${runId}_${index}`;
      const appSchema = `poison_app_${runId}_${index}`;
      const client = await connections.connect();
      try {
        await migrate(client, inboxSchema);
        await client.query(`CREATE SCHEMA ${appSchema}; ${orderTablesSql(appSchema)}`);
      } finally {
        client.release();
      }
      const pool = connections.environmentPool(8);
      return {
        consumer: orderSqlConsumerUnderTest(connections, pool, { inboxSchema, appSchema }, `poison-${index}`),
        drop: async () => {
          await pool.end();
          await connections.query(`DROP SCHEMA ${inboxSchema}, ${appSchema} CASCADE`);
        },
      };
    },
  };
}

export function orderSqlConsumerUnderTest(
  connections: PostgresConnections,
  pool: ReturnType<PostgresConnections['environmentPool']>,
  schemas: { readonly inboxSchema: string; readonly appSchema: string },
  consumerName: string,
): ConsumerUnderTest {
  const invoke = observedInvoke(
    {
      ...orderSqlConsumer(schemas.appSchema),
      store: postgresInbox({ pool, settings: { schema: schemas.inboxSchema } }),
      settings: { consumerName },
    },
    consumerName,
  );
  const { inboxSchema, appSchema } = schemas;
  return {
    invoke,
    async appliedState() {
      // Every row in a fixed order, so two reads of the same content compare equal.
      const tables = [
        `SELECT * FROM ${inboxSchema}.inbox ORDER BY consumer, dedup_key`,
        `SELECT * FROM ${inboxSchema}.quarantine ORDER BY consumer, quarantine_key`,
        `SELECT * FROM ${appSchema}.accounts ORDER BY account_id`,
        `SELECT * FROM ${appSchema}.orders ORDER BY order_id`,
      ];
      const rows = [];
      for (const text of tables) rows.push((await connections.query(text)).rows);
      return JSON.stringify(rows);
    },
    async hasQuarantineRow(quarantineKey) {
      const { rows } = await connections.query(
        `SELECT 1 FROM ${inboxSchema}.quarantine WHERE consumer = $1 AND quarantine_key = $2`,
        [consumerName, storedKey(quarantineKey)],
      );
      return rows.length > 0;
    },
  };
}
