/**
 * `npm start -- --store postgres`: the sample consumer's Postgres bundle against PGlite, the embedded
 * Postgres (docs/toolchain.md#postgres), with the inbox's tables migrated and the sample's created. PGlite
 * is one session: each function environment keeps one connection (POSTGRES_POOL_MAX=1) and closes it as
 * soon as it is idle, and a connection waits its turn at the session gate, so environments take turns.
 */
import pg from 'pg';
import { migrate } from '../../lambdas/postgres/index.js';
import { ORDER_CONSUMER_POSTGRES_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { orderTablesSql } from '../../sample/order-consumer/order-placed-sql.js';
import { startPglite } from '../postgres/pglite-server.js';
import type { RunningPostgres } from '../postgres/running-postgres.js';
import { type DemoState, readPostgresState } from './demo-state.js';

export const DEMO_INBOX_SCHEMA = 'msk_inbox';

/** The sample's Postgres entry, as build-bundles.ts takes it. */
export const POSTGRES_BUNDLE = {
  entry: ORDER_CONSUMER_POSTGRES_ENTRY,
  name: 'order-consumer-postgres',
} as const;

/** Longest wait of an environment's connection for the one session: a whole invocation's transactions. */
const TURN_WAIT_MS = 120_000;

export async function startDemoPostgres(): Promise<RunningPostgres> {
  const running = await startPglite({ admitGraceMs: TURN_WAIT_MS });
  try {
    const client = new pg.Client({ connectionString: running.url });
    await client.connect();
    try {
      await migrate(client, DEMO_INBOX_SCHEMA);
      await client.query(orderTablesSql());
    } finally {
      await client.end();
    }
    return running;
  } catch (error) {
    await running.stop();
    throw error;
  }
}

/** The function's POSTGRES_* settings (lambdas/postgres/postgres-settings.ts) for the running PGlite. */
export function postgresFunctionEnvironment(running: RunningPostgres): Record<string, string> {
  return {
    POSTGRES_AUTH: 'url',
    POSTGRES_URL: running.url,
    POSTGRES_SCHEMA: DEMO_INBOX_SCHEMA,
    POSTGRES_POOL_MAX: '1',
    // Closed as soon as idle, so the next environment gets the session.
    POSTGRES_IDLE_TIMEOUT_MS: '1',
  };
}

export function readDemoPostgresState(running: RunningPostgres, consumerName: string): Promise<DemoState> {
  return readPostgresState({ url: running.url, inboxSchema: DEMO_INBOX_SCHEMA, consumerName });
}
