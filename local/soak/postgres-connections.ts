/**
 * The soak's connections to its Postgres server. On a real server (Debian's postgresql) each execution
 * environment gets a pool of its own, as a Lambda container has, so overlapping invocations and the
 * partitions of one run in sessions of their own, with real row locks between them. PGlite is ONE session
 * (local/postgres/pglite-server.ts): there every environment of every schedule shares one connection, and
 * what would run at once takes turns at the store's operations.
 */
import pg from 'pg';
import type { ConnectionSource } from '../../lambdas/postgres/connection.js';
import { POSTGRES_SETTINGS } from '../../lambdas/postgres/postgres-settings.js';
import type { PostgresKind } from '../postgres/running-postgres.js';

/**
 * Connections one environment's pool opens at most: its partitions (up to 8) take turns beyond it. Kept
 * small so the schedules in flight at once, each with an overlapping invocation's pool besides, stay well
 * inside the server's 100 connections.
 */
const ENVIRONMENT_CONNECTIONS = 4;

export interface PostgresConnections {
  readonly kind: PostgresKind;
  /** A pool for one execution environment of a consumer with this PARTITION_CONCURRENCY. */
  environmentPool(partitionConcurrency: number): ConnectionSource;
  /** The soak's own statements (setup, seeded rows, the end state): never under faults. */
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** One of the soak's own connections, for a transaction (release it). */
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

export function postgresConnections(url: string, kind: PostgresKind): PostgresConnections {
  const poolOf = (max: number): pg.Pool => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      // As the store's own pool sets it (lambdas/postgres/connection.ts): a statement stuck on a lock ends.
      statement_timeout: POSTGRES_SETTINGS.statementTimeoutMs.default,
    });
    // An idle connection cut by the server (its stop at the end of a run) is nobody's failure.
    pool.on('error', () => undefined);
    return pool;
  };
  const own = poolOf(kind === 'pglite' ? 1 : 4);
  return {
    kind,
    environmentPool(partitionConcurrency) {
      if (kind === 'pglite') return { connect: () => own.connect(), end: async () => undefined };
      const pool = poolOf(Math.min(Math.max(1, partitionConcurrency), ENVIRONMENT_CONNECTIONS));
      let ended: Promise<void> | undefined;
      return {
        connect: () => pool.connect(),
        end: () => {
          ended ??= pool.end();
          return ended;
        },
      };
    },
    query: (text, values) => own.query(text, values),
    connect: () => own.connect(),
    end: () => own.end(),
  };
}
