/**
 * The InboxStore contract (test/support/inbox-store-contract.ts) on the Postgres store, on PGlite and on
 * Debian's Postgres: each case in a fresh schema with the inbox migrated and a business table for the
 * effects' SQL (test/support/inbox-store-contract/sql-effects.ts).
 */
import { PostgresInboxStore } from '../../../lambdas/postgres/postgres-inbox-store.js';
import { migrate } from '../../../lambdas/postgres/schema.js';
import { storedKey } from '../../../lambdas/postgres/sql-text.js';
import {
  APP_ITEMS_TABLE_SQL,
  readAppItem,
  sqlEffects,
} from '../../support/inbox-store-contract/sql-effects.js';
import { describeInboxStoreContract } from '../../support/inbox-store-contract.js';
import { describeOnPostgres, freshSchema } from '../../support/postgres.js';

const CONSUMER = 'contract-consumer';

describeOnPostgres('PostgresInboxStore', (target) => {
  describeInboxStoreContract(`PostgresInboxStore on ${target.kind}`, {
    capabilities: {
      contentLimits: {
        unsupported:
          "DynamoDB's own limits (400 KB items, 2,048-byte keys): what Postgres refuses for a record's content is a constraint or a data exception (storeConstraints)",
      },
      twoWritesOnOneItemRefused: {
        unsupported:
          "a SQL effect's statements run in order, the later seeing the earlier (stepsSeeEarlierSteps)",
      },
      stepsSeeEarlierSteps: true,
      storeConstraints: true,
    },
    async makeHarness({ clock, ttlSeconds }) {
      const db = await freshSchema(target.url());
      try {
        const client = await db.pool.connect();
        try {
          await migrate(client, db.schema);
          await client.query(APP_ITEMS_TABLE_SQL);
        } finally {
          client.release();
        }
      } catch (error) {
        await db.drop();
        throw error;
      }
      return {
        ...sqlEffects(),
        store: new PostgresInboxStore({
          pool: db.pool,
          schema: db.schema,
          consumer: CONSUMER,
          ttlSeconds,
          clock,
        }),
        appItem: (pk) => readAppItem(db.pool, pk),
        holdsDedupRow: async (dedupKey) => {
          const { rows } = await db.pool.query(
            `select 1 from ${db.schema}.inbox where consumer = $1 and dedup_key = $2`,
            [CONSUMER, storedKey(dedupKey)],
          );
          return rows.length > 0;
        },
        dispose: () => db.drop(),
      };
    },
  });
});
