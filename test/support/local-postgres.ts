/**
 * A real Postgres for a test file: PGlite (an npm package, nothing installed) behind its socket server on
 * loopback, reached by the real `pg` driver. A cold start takes seconds: one per file, its tests isolated
 * by schema.
 *
 * PGlite is ONE Postgres session behind every connection. The operator tests connect three ways (the
 * tool's pool, the consumer's pool when a replay's --handler runs in this process, the test's own), each
 * with one connection, and they take turns: none holds a transaction open while another waits, so the
 * few connections allowed here never interleave inside a transaction.
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';

export interface LocalPostgres {
  readonly url: string;
  /** The test's own connection, for seeding and reading rows. */
  readonly pool: pg.Pool;
  stop(): Promise<void>;
}

/** PGlite on a free loopback port; `stop` ends the test's pool before the server, then the database. */
export async function startLocalPostgres(): Promise<LocalPostgres> {
  const db = await PGlite.create();
  // The tool, the consumer and the test, one connection each (see the module's note), and one spare.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined);
  return {
    url,
    pool,
    async stop() {
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}
