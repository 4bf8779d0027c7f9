/**
 * A Postgres inbox to test the store against: a fresh schema (test/support/postgres.ts) with the inbox
 * migrated, the contract's `app_items` table, and an `accounts` table whose balance a CHECK keeps
 * non-negative, so an effect can break a unique key (23505) or a check (23514).
 */
import type { PoolClient } from 'pg';
import type { Clock } from '../../lambdas/core/clock.js';
import type { ConnectionSource } from '../../lambdas/postgres/connection.js';
import { PostgresInboxStore } from '../../lambdas/postgres/postgres-inbox-store.js';
import { migrate } from '../../lambdas/postgres/schema.js';
import { storedKey } from '../../lambdas/postgres/sql-text.js';
import { APP_ITEMS_TABLE_SQL } from './inbox-store-contract/sql-effects.js';
import { type FreshSchema, freshSchema } from './postgres.js';

export const CONSUMER = 'pg-consumer';
export const TTL_SECONDS = 3_600;

const ACCOUNTS_TABLE_SQL = `create table accounts (
  id       text  primary key,
  balance  int   not null check (balance >= 0)
)`;

/** A fresh schema with the inbox and the business tables; `max` connections (1 on PGlite). */
export async function inboxDatabase(
  url: string,
  options: { readonly max?: number } = {},
): Promise<FreshSchema> {
  const db = await freshSchema(url, options);
  try {
    const client = await db.pool.connect();
    try {
      await migrate(client, db.schema);
      await client.query(APP_ITEMS_TABLE_SQL);
      await client.query(ACCOUNTS_TABLE_SQL);
    } finally {
      client.release();
    }
  } catch (error) {
    await db.drop();
    throw error;
  }
  return db;
}

export interface StoreOptions {
  readonly consumer?: string;
  readonly ttlSeconds?: number;
  /** Connections other than the schema's pool (a proxy, a pool with other settings). */
  readonly pool?: ConnectionSource;
  /** POSTGRES_OUTBOX_NOTIFY=off when false. */
  readonly notifyRelay?: boolean;
}

export function postgresStore(db: FreshSchema, clock: Clock, options: StoreOptions = {}): PostgresInboxStore {
  return new PostgresInboxStore({
    pool: options.pool ?? db.pool,
    schema: db.schema,
    consumer: options.consumer ?? CONSUMER,
    ttlSeconds: options.ttlSeconds ?? TTL_SECONDS,
    clock,
    ...(options.notifyRelay === undefined ? {} : { notifyRelay: options.notifyRelay }),
  });
}

/** The inbox rows of a consumer, by dedup key as given (not as stored). */
export async function hasInboxRow(db: FreshSchema, dedupKey: string, consumer = CONSUMER): Promise<boolean> {
  const { rows } = await db.pool.query(
    `select 1 from ${db.schema}.inbox where consumer = $1 and dedup_key = $2`,
    [consumer, storedKey(dedupKey)],
  );
  return rows.length > 0;
}

export async function countRows(db: FreshSchema, table: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(`select count(*) as n from ${db.schema}.${table}`);
  return Number(rows[0]?.n ?? 0);
}

/**
 * A connection source that hands out the pool's clients and records every statement they run while
 * checked out (the client goes back to the pool as it came).
 */
export function recordingPool(db: FreshSchema): ConnectionSource & { readonly statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    async connect(): Promise<PoolClient> {
      const client = await db.pool.connect();
      const query = client.query;
      const release = client.release;
      const run = query as unknown as (text: string, values?: unknown[]) => Promise<unknown>;
      client.query = ((text: string, values?: unknown[]) => {
        statements.push(text);
        return run.call(client, text, values);
      }) as typeof client.query;
      client.release = (error?: Error | boolean) => {
        client.query = query;
        client.release = release;
        release.call(client, error);
      };
      return client;
    },
    end: async () => undefined,
  };
}
