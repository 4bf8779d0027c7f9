/**
 * A real Postgres for an operator test file: PGlite from local/postgres/pglite-server.ts (started from its
 * cached template), one per file, its tests isolated by schema, and a connection of the test's own.
 *
 * PGlite is ONE Postgres session behind every connection. The operator tests connect three ways (the
 * tool's pool, the consumer's pool when a replay's --handler runs in this process, the test's own), each
 * with one connection, and they take turns: none holds a transaction open while another waits, so these
 * few connections never interleave inside a transaction.
 */
import pg from 'pg';
import { startPglite } from '../../local/postgres/pglite-server.js';

export interface LocalPostgres {
  readonly url: string;
  /** The test's own connection, for seeding and reading rows. */
  readonly pool: pg.Pool;
  stop(): Promise<void>;
}

/** The tool, the consumer and the test, one connection each (see the module's note), and one spare. */
const CONNECTIONS = 4;

/** PGlite on a loopback port; `stop` ends the test's pool before the server. */
export async function startLocalPostgres(): Promise<LocalPostgres> {
  const running = await startPglite({ maxConnections: CONNECTIONS });
  const pool = new pg.Pool({ connectionString: running.url, max: 1 });
  pool.on('error', () => undefined);
  return {
    url: running.url,
    pool,
    async stop() {
      await pool.end();
      await running.stop();
    },
  };
}
