/**
 * The operator commands against a real Postgres (test/support/local-postgres.ts: PGlite, one per test file),
 * each file's rows in a schema of its own, made by `msk-inbox postgres migrate` itself. Quarantine rows
 * are written by a real consumer on the Postgres store (fixtures/sql-orders-handler.ts).
 */
import { join } from 'node:path';
import type pg from 'pg';
import { storedKey } from '../../../lambdas/postgres/sql-text.js';
import type { OperatorIo } from '../../../operator/commands/operator-io.js';
import { runOperator } from '../../../operator/operator-main.js';
import { APPLIED_ORDERS_TABLE } from './fixtures/applied-orders.js';
import { CONSUMER, type Run } from './operator-harness.js';

export const SQL_HANDLER_FILE = join(import.meta.dirname, 'fixtures', 'sql-orders-handler.ts');

/** Runs one command line against the schema; `answer` is what a person types at a confirmation. */
export async function pgOperator(
  url: string,
  schema: string,
  argv: readonly string[],
  answer?: string,
  nowMs: () => number = Date.now,
): Promise<Run> {
  const { io, run } = collectingIo(answer, nowMs);
  // migrate makes a schema for every consumer: it takes no --consumer.
  const consumer = argv[1] === 'migrate' ? [] : ['--consumer', CONSUMER];
  return run(await runOperator([...argv, '--postgres', url, '--schema', schema, ...consumer], io));
}

/** An OperatorIo that keeps what a command prints, and the Run it came to once given the exit code. */
export function collectingIo(
  answer?: string,
  nowMs: () => number = Date.now,
): { readonly io: OperatorIo; run(code: number): Run } {
  const out: string[] = [];
  const notes: string[] = [];
  const io: OperatorIo = {
    print: (text) => out.push(text),
    note: (text) => notes.push(text),
    ask: async () => answer,
    nowMs,
    user: () => 'test-operator',
  };
  return { io, run: (code) => ({ code, out: out.join('\n'), notes: notes.join('\n') }) };
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
  const { rows } = await pool.query(
    `SELECT applied FROM ${schema}.${APPLIED_ORDERS_TABLE} WHERE event_id = $1`,
    [eventId],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].applied);
}
