/**
 * globalSetup of the test projects with Postgres tests (vitest.config.ts), in the main process, once per
 * run: it starts this run's Debian Postgres server, shared by every file (test/support/postgres.ts), where
 * the `postgresql` package is installed, or says once why those tests are skipped; and it makes PGlite's
 * template data folder before any file starts a PGlite from it, so parallel files never each pay initdb.
 *
 * A failed start is handed to the tests instead of thrown, so they fail with its message (as a missing
 * kcat fails the broker tests) rather than the whole project. Like test/support/dynamodb-local-setup.ts
 * the server lives on globalThis: each project loads this file through its own module runner.
 */
import type { TestProject } from 'vitest/node';
import { startDebianPostgres } from '../../local/postgres/debian-postgres.js';
import { ensurePgliteTemplate } from '../../local/postgres/pglite-server.js';
import type { RunningPostgres } from '../../local/postgres/running-postgres.js';
import { type DebianPostgresState, POSTGRES_SKIP_NOTICE, skipDebianPostgresTests } from './postgres.js';

interface SharedServer {
  readonly server: Promise<RunningPostgres | undefined>;
  readonly state: Promise<DebianPostgresState>;
  users: number;
}

const SHARED = Symbol.for('msk-inbox.test.debian-postgres');

type Holder = typeof globalThis & { [SHARED]?: SharedServer };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  let shared = holder[SHARED];
  if (shared === undefined) {
    if (skipDebianPostgresTests) console.warn(POSTGRES_SKIP_NOTICE);
    const server = skipDebianPostgresTests ? Promise.resolve(undefined) : startDebianPostgres();
    shared = {
      server: server.catch(() => undefined),
      state: server.then(
        (running): DebianPostgresState => (running === undefined ? { skipped: true } : { url: running.url }),
        (error: unknown): DebianPostgresState => ({
          error: error instanceof Error ? error.message : String(error),
        }),
      ),
      users: 0,
    };
    holder[SHARED] = shared;
  }
  shared.users += 1;
  const acquired = shared;
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    acquired.users -= 1;
    if (acquired.users > 0) return;
    if (holder[SHARED] === acquired) delete holder[SHARED];
    await (await acquired.server)?.stop();
  };
  try {
    await ensurePgliteTemplate();
    project.provide('debianPostgres', await acquired.state);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
