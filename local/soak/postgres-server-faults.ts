/**
 * How the server itself produces a statement's fault (postgres-fault-injection.ts decides when): the
 * failing statement takes the place of the one the store sent, which therefore never ran, as a statement
 * that failed leaves nothing behind; and the server aborts the transaction as it would for the real thing.
 */
import type { PoolClient, QueryResult } from 'pg';
import type { PostgresKind } from '../postgres/running-postgres.js';

export interface ServerFaultContext {
  readonly kind: PostgresKind;
  /** Whether the connection has a transaction open (BEGIN sent, no COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean;
}

export async function failOnServer(
  client: PoolClient,
  fault: 'statement-timeout' | 'serialization-failure' | 'deadlock',
  context: ServerFaultContext,
): Promise<QueryResult> {
  switch (fault) {
    case 'statement-timeout':
      return timedOut(client, context);
    case 'serialization-failure':
      return raised(client, 'serialization_failure', 'could not serialize access due to concurrent update');
    case 'deadlock':
      return raised(client, 'deadlock_detected', 'deadlock detected');
  }
}

/**
 * The server answers the next COMMIT with a serialization failure (40001) and rolls back: a row for the
 * deferred trigger of postgres-soak-setup.ts, which raises it when the transaction commits.
 */
export async function refuseNextCommit(client: PoolClient, faultSchema: string): Promise<void> {
  await client.query(`INSERT INTO ${faultSchema}.commit_refusals DEFAULT VALUES`);
}

/** The statement is cancelled by statement_timeout before it did anything (SQLSTATE 57014). */
async function timedOut(client: PoolClient, context: ServerFaultContext): Promise<QueryResult> {
  // PGlite ignores statement_timeout: its server raises what the timeout would.
  if (context.kind === 'pglite') {
    return raised(client, 'query_canceled', 'canceling statement due to statement timeout');
  }
  if (context.inTransaction) {
    // Undone with the transaction, or with the savepoint the store rolls back to.
    await client.query('SET LOCAL statement_timeout = 1');
    return client.query('SELECT pg_sleep(5)');
  }
  await client.query('SET statement_timeout = 1');
  try {
    return await client.query('SELECT pg_sleep(5)');
  } finally {
    // Back to the session's own, the pool's statement_timeout.
    await client.query('RESET statement_timeout');
  }
}

/** An error with this condition name's SQLSTATE, raised by the server in place of the statement. */
function raised(client: PoolClient, condition: string, message: string): Promise<QueryResult> {
  return client.query(`DO $$ BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${condition}'; END $$`);
}
