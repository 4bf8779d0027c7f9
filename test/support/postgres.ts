/**
 * Tests against real Postgres, through the `pg` driver, on two servers (docs/toolchain.md#postgres):
 *
 * - `pglite`: PGlite, always there (an npm package). One per test file, started by the file's first
 *   describeOnPostgres block and stopped after its last, because it is ONE Postgres session: test files
 *   running at once cannot share it. Use one connection at a time (freshSchema's pool has max 1).
 * - `postgresql`: Debian's Postgres server, one per test run, started by test/support/postgres-setup.ts
 *   where the `postgresql` package is installed. Elsewhere its tests are skipped and the run says why in one
 *   line, unless REQUIRE_POSTGRES_VARIABLE is set, as .ci/run does: then they run and fail, so CI never
 *   skips them.
 *
 * Files share the Debian server, and a file's tests share its PGlite: each test takes a schema of its own
 * (freshSchema) and drops it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { findDebianPostgres, INSTALL_POSTGRES } from '../../local/postgres/debian-postgres.js';
import { startPglite } from '../../local/postgres/pglite-server.js';
import type { PostgresKind, RunningPostgres } from '../../local/postgres/running-postgres.js';

export const REQUIRE_POSTGRES_VARIABLE = 'MSK_INBOX_REQUIRE_POSTGRES';

export const postgresRequired = process.env[REQUIRE_POSTGRES_VARIABLE] === '1';

/** Pass to `describe.skipIf`. */
export const skipDebianPostgresTests = !postgresRequired && findDebianPostgres() === undefined;

export const POSTGRES_SKIP_NOTICE = `Debian's postgresql not found: the tests on it (describeOnPostgres, describeOnDebianPostgres) are skipped; ${INSTALL_POSTGRES} runs them (CI sets ${REQUIRE_POSTGRES_VARIABLE}=1, which fails them instead)`;

/** What the globalSetup hands the test files about this run's Debian server. */
export type DebianPostgresState =
  | { readonly url: string }
  | { readonly error: string }
  | { readonly skipped: true };

declare module 'vitest' {
  export interface ProvidedContext {
    debianPostgres: DebianPostgresState;
  }
}

export interface PostgresTarget {
  readonly kind: PostgresKind;
  /** The server's URL: from the block's beforeAll on, so call it in tests and hooks, not while collecting. */
  url(): string;
}

/** Runs `body` once against each server: `name > pglite` and `name > postgresql`. */
export function describeOnPostgres(name: string, body: (target: PostgresTarget) => void): void {
  describe(name, () => {
    describe('pglite', () => body(pgliteTarget()));
    describe.skipIf(skipDebianPostgresTests)('postgresql', () => body(debianTarget()));
  });
}

/** For what PGlite cannot do (concurrent sessions, row locks between them, statement_timeout, TLS). */
export function describeOnDebianPostgres(name: string, body: (target: PostgresTarget) => void): void {
  describe.skipIf(skipDebianPostgresTests)(`${name} (postgresql)`, () => body(debianTarget()));
}

function debianTarget(): PostgresTarget {
  let url: string | undefined;
  beforeAll(() => {
    url = debianPostgresUrl();
  });
  return { kind: 'postgresql', url: () => started(url) };
}

/** This run's Debian server, or the reason it is not there (the test fails with it). */
export function debianPostgresUrl(): string {
  const state = inject('debianPostgres') as DebianPostgresState | undefined;
  if (state === undefined) {
    throw new Error(
      'no Debian Postgres for this project: add test/support/postgres-setup.ts to its globalSetup',
    );
  }
  if ('url' in state) return state.url;
  if ('error' in state) throw new Error(`Debian's Postgres did not start for this run: ${state.error}`);
  throw new Error(POSTGRES_SKIP_NOTICE);
}

/** This file's PGlite: started by the first block that needs it, stopped when the last one is done. */
let filePglite: { readonly running: Promise<RunningPostgres>; users: number } | undefined;

function pgliteTarget(): PostgresTarget {
  let url: string | undefined;
  let acquired = false;
  beforeAll(async () => {
    filePglite ??= { running: startPglite(), users: 0 };
    filePglite.users += 1;
    acquired = true;
    url = (await filePglite.running).url;
  });
  afterAll(async () => {
    if (!acquired || filePglite === undefined) return;
    const shared = filePglite;
    shared.users -= 1;
    if (shared.users > 0) return;
    filePglite = undefined;
    await (await shared.running.catch(() => undefined))?.stop();
  });
  return { kind: 'pglite', url: () => started(url) };
}

function started(url: string | undefined): string {
  if (url === undefined) throw new Error("the server's URL is known from the block's beforeAll on");
  return url;
}

export interface FreshSchema {
  /** `t_` and 12 hex digits: a plain identifier, needing no quotes. */
  readonly schema: string;
  /** Every connection's search_path is the schema alone, so unqualified names land in it. */
  readonly pool: pg.Pool;
  /** Drops the schema with all it holds and ends the pool. */
  drop(): Promise<void>;
}

/**
 * A schema of the test's own, with a pool whose connections work in it. `max` stays 1 on PGlite (one
 * session: a second connection is refused); on Debian's Postgres a test that needs concurrent sessions
 * raises it. PGlite ignores the `options` startup parameter, so search_path is set on each new connection
 * instead.
 */
export async function freshSchema(
  url: string,
  options: { readonly max?: number } = {},
): Promise<FreshSchema> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 1,
    // Awaited by the pool (pg-pool 3.14) before the connection serves a query; a failure fails that query.
    onConnect: async (client) => {
      await client.query(`set search_path to ${schema}`);
    },
  });
  // An idle connection cut by the server (its stop at the end of a run) is no test's failure.
  pool.on('error', () => undefined);
  try {
    await pool.query(`create schema ${schema}`);
  } catch (error) {
    await pool.end();
    throw error;
  }
  let dropped: Promise<void> | undefined;
  const drop = async (): Promise<void> => {
    try {
      await pool.query(`drop schema ${schema} cascade`);
      // PGlite's one session outlives this pool: leave its search_path as the next pool expects it.
      await pool.query('reset search_path');
    } finally {
      await pool.end();
    }
  };
  return {
    schema,
    pool,
    drop: () => {
      dropped ??= drop();
      return dropped;
    },
  };
}
