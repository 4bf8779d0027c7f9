/**
 * The operator commands against a real Postgres: PGlite behind its socket server on loopback, one per test
 * file (a cold start takes seconds), each file's rows in a schema of its own, made by
 * `msk-inbox postgres migrate` itself. Quarantine rows are written by a real consumer on the Postgres
 * store (fixtures/sql-orders-handler.ts).
 *
 * PGlite is one Postgres session behind every connection: the tool's pool, the consumer's pool (a replay's
 * --handler runs in this process) and the test's own take turns, never holding a transaction open while
 * another waits, so the few connections allowed here are safe.
 */
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { storedKey } from '../../../lambdas/postgres/sql-text.js';
import type { OperatorIo } from '../../../operator/commands/operator-io.js';
import { runOperator } from '../../../operator/operator-main.js';
import { CONSUMER, type Run } from './operator-harness.js';

export const SQL_HANDLER_FILE = join(import.meta.dirname, 'fixtures', 'sql-orders-handler.ts');

export interface LocalPostgres {
  readonly url: string;
  /** The test's own connection, for seeding and reading rows. */
  readonly pool: pg.Pool;
  stop(): Promise<void>;
}

/** PGlite on a free loopback port; `stop` ends the test's pool before the server, then the database. */
export async function startLocalPostgres(): Promise<LocalPostgres> {
  const db = await PGlite.create();
  // The tool, the consumer and the test: one connection each at most (see the module's note).
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

/** Runs one command line against the schema; `answer` is what a person types at a confirmation. */
export async function pgOperator(
  url: string,
  schema: string,
  argv: readonly string[],
  answer?: string,
  nowMs: () => number = Date.now,
): Promise<Run> {
  const out: string[] = [];
  const notes: string[] = [];
  const io: OperatorIo = {
    print: (text) => out.push(text),
    note: (text) => notes.push(text),
    ask: async () => answer,
    nowMs,
    user: () => 'test-operator',
  };
  // migrate makes a schema for every consumer: it takes no --consumer.
  const consumer = argv[1] === 'migrate' ? [] : ['--consumer', CONSUMER];
  const code = await runOperator([...argv, '--postgres', url, '--schema', schema, ...consumer], io);
  return { code, out: out.join('\n'), notes: notes.join('\n') };
}

/** The variables of a consumer on this schema, set before the fixture consumer is first imported. */
export function useSqlConsumerEnvironment(url: string, schema: string): void {
  Object.assign(process.env, {
    CONSUMER_NAME: CONSUMER,
    POSTGRES_AUTH: 'url',
    POSTGRES_URL: url,
    POSTGRES_SCHEMA: schema,
    POSTGRES_POOL_MAX: '1',
    ORDERS_MAX_AMOUNT: '100',
  });
}

/** A quarantine row as stored: its columns, and its item's attributes. */
export async function quarantineRowOf(
  pool: pg.Pool,
  schema: string,
  id: string,
  table: 'quarantine' | 'quarantine_replaying' = 'quarantine',
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query(
    `SELECT status, quarantined_at, item FROM ${schema}.${table} WHERE consumer = $1 AND quarantine_key = $2`,
    [CONSUMER, storedKey(id)],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    ...JSON.parse(String(row.item)),
    column_status: row.status,
    column_quarantined_at: Number(row.quarantined_at),
  };
}

/** How often the fixture consumer applied the order of `eventId`, undefined if never. */
export async function sqlAppliedCountOf(
  pool: pg.Pool,
  schema: string,
  eventId: string,
): Promise<number | undefined> {
  const { rows } = await pool.query(`SELECT applied FROM ${schema}.applied_orders WHERE event_id = $1`, [
    eventId,
  ]);
  return rows[0] === undefined ? undefined : Number(rows[0].applied);
}
