/**
 * A throwaway Postgres server from Debian's `postgresql` package (its binaries, never its system cluster):
 * initdb into a fresh temporary folder, one server on a free loopback port, removed by stop().
 * Unlike PGlite it is real Postgres: many sessions, row locks, statement_timeout. docs/toolchain.md#postgres
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { chown, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { UserError } from '../../operator/cli/user-error.js';
import { freePort, PortInUseError } from '../dynamodb-local/server.js';
import { type GuardedProcess, spawnGuarded } from '../process/guarded-spawn.js';
import { waitUntilReady } from '../process/wait-until-ready.js';
import { makeTempDir, type RunningPostgres, removeOrphanedTempDirs } from './running-postgres.js';

/** Where Debian's postgresql-<version> packages put their binaries: `<root>/<version>/bin`. */
export const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';

/** How to get it, for every message that needs it. */
export const INSTALL_POSTGRES = 'apt-get install -y postgresql';

/** Not installed: a person installs it. */
export class PostgresNotInstalledError extends UserError {
  constructor() {
    super(
      `Debian's postgresql is not installed (no ${DEBIAN_POSTGRES_ROOT}/<version>/bin/initdb): ${INSTALL_POSTGRES}`,
    );
    this.name = 'PostgresNotInstalledError';
  }
}

/** The bin folder of the highest installed version that has initdb and postgres, or undefined: a look only. */
export function findDebianPostgres(root = DEBIAN_POSTGRES_ROOT): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(root).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    return undefined;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (isExecutable(join(bin, 'initdb')) && isExecutable(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface StartDebianPostgresOptions {
  /** @default findDebianPostgres() */
  readonly binDirectory?: string;
  /** @default 30000 */
  readonly startTimeoutMs?: number;
}

/** The superuser initdb makes, with trust authentication: no password anywhere. */
const USER = 'msk_inbox';
const DATABASE = 'msk_inbox';
const TEMP_PREFIX = 'msk-inbox-postgres';
const PORT_ATTEMPTS = 3;

/**
 * Settings for a server whose data is thrown away: durability off (a crash loses the database anyway).
 * Everything else is the package's default, as a production server would have it.
 */
const THROWAWAY_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

/**
 * initdb and starts a server, then creates its database; resolves once it accepts connections.
 * initdb and postgres refuse to run as root: as root they run as the `postgres` user the package made.
 * The server runs under local/process/exit-with-parent.mjs, so it ends when this process ends, however
 * this process ends; a data folder left by a process that died is removed by the next start.
 */
export async function startDebianPostgres(
  options: StartDebianPostgresOptions = {},
): Promise<RunningPostgres> {
  const bin = options.binDirectory ?? findDebianPostgres();
  if (bin === undefined) throw new PostgresNotInstalledError();
  const owner = await serverOwner();
  await removeOrphanedTempDirs(TEMP_PREFIX);
  const dir = await makeTempDir(TEMP_PREFIX);
  try {
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    const dataDir = join(dir, 'data');
    await promisify(execFile)(
      join(bin, 'initdb'),
      // --no-locale: the C locale, the same collation on every machine; --no-sync: nothing to keep.
      [
        '-D',
        dataDir,
        '-U',
        USER,
        '--auth=trust',
        '--encoding=UTF8',
        '--no-locale',
        '--no-sync',
        '--no-instructions',
      ],
      { cwd: dir, timeout: 60_000, ...owner },
    );
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await startServer(bin, dir, await freePort(), owner, options.startTimeoutMs ?? 30_000);
      } catch (error) {
        // A free port can be taken between the kernel's answer and the server's bind: then another one.
        if (!(error instanceof PortInUseError) || attempt >= PORT_ATTEMPTS) throw error;
      }
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/** Who runs initdb and postgres: the `postgres` user when this process is root, else this process's user. */
async function serverOwner(): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string): Promise<number> => {
    const { stdout } = await promisify(execFile)('id', [flag, 'postgres']);
    return Number(stdout.trim());
  };
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch (error) {
    throw new UserError(
      `running as root, and there is no postgres user to run Postgres as (Debian's postgresql package makes it): ${INSTALL_POSTGRES}`,
      { cause: error },
    );
  }
}

async function startServer(
  bin: string,
  dir: string,
  port: number,
  owner: Owner | undefined,
  timeoutMs: number,
): Promise<RunningPostgres> {
  const server = await spawnGuarded(
    join(bin, 'postgres'),
    [
      ...['-D', join(dir, 'data'), '-h', '127.0.0.1', '-p', String(port)],
      // Its unix socket in its own folder: the system's /var/run/postgresql may not exist or be someone else's.
      ...['-k', dir],
      ...THROWAWAY_SETTINGS.flatMap((setting) => ['-c', setting]),
    ],
    owner ?? {},
  );
  const adminUrl = `postgres://${USER}@127.0.0.1:${port}/postgres`;
  try {
    await waitUntilReady(server, {
      name: 'postgres',
      port,
      answers: () => accepts(adminUrl),
      portInUse: /could not bind .*Address already in use/,
      timeoutMs,
      intervalMs: 50,
    });
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`create database ${DATABASE}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://${USER}@127.0.0.1:${port}/${DATABASE}`,
    kind: 'postgresql',
    stop: () => {
      stopped ??= stopServer(server).finally(() => rm(dir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  // A refused connection also emits 'error' on the client: without a listener that would be uncaught.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How long a fast shutdown gets before the guard's SIGTERM, then SIGKILL. */
const FAST_SHUTDOWN_MS = 10_000;

/**
 * Fast shutdown (SIGINT: roll back open transactions, disconnect clients), not the guard's SIGTERM, which
 * is Postgres's smart shutdown and waits for every client to leave.
 */
async function stopServer(server: GuardedProcess): Promise<void> {
  const { guard } = server;
  if (guard.exitCode !== null || guard.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => guard.once('exit', () => resolve()));
  try {
    process.kill(server.pid, 'SIGINT');
  } catch {
    // Already gone: the guard is exiting too.
  }
  if (!(await within(exited, FAST_SHUTDOWN_MS))) await server.stop();
}

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
