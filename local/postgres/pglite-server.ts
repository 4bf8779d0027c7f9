/**
 * PGlite (Postgres 18 compiled to WASM, run in this process) behind a Postgres wire-protocol socket on
 * loopback, so the real `pg` driver talks to it as to a server: a Postgres that needs nothing installed.
 *
 * PGlite is ONE Postgres session, shared by every socket connection: two connections' transactions and
 * extended-protocol messages interleave in it, and a query from a second connection while the first holds
 * a transaction open can wait forever (https://github.com/electric-sql/pglite/issues/985, #1046). Clients
 * must therefore use one connection: `new pg.Pool({ connectionString: url, max: 1 })`. It also ignores
 * statement_timeout and has no TLS. docs/toolchain.md#postgres
 */
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { CACHE_DIRECTORY } from '../project-paths.js';
import { makeTempDir, type RunningPostgres, removeOrphanedTempDirs } from './running-postgres.js';
import { type SessionGate, startSessionGate } from './session-gate.js';

export interface StartPgliteOptions {
  /**
   * Connections open at once; one more is refused with SQLSTATE 53300, while a connection that comes as
   * another closes waits for it to be released (local/postgres/session-gate.ts). Above 1, see the module's
   * note: the connections share one session.
   * @default 1
   */
  readonly maxConnections?: number;
  /** How long a connection waits for its turn at the session (session-gate.ts). @default 1 s */
  readonly admitGraceMs?: number;
}

/** PGlite's user and database (its defaults): any name in the URL reaches the same single session. */
const USER = 'postgres';
const DATABASE = 'postgres';

const TEMP_PREFIX = 'msk-inbox-pglite';
const UPSTREAM_SPARE_CONNECTIONS = 4;

/**
 * Starts PGlite on a copy of the cached template data folder and serves it on a free loopback port.
 * A cold PGlite.create() runs initdb (5 to 9 s, about 750 MB resident); opening a copy of a data folder made
 * once takes about 1.5 s and 300 MB, so the first start on a machine makes the template
 * (ensurePgliteTemplate) and every start copies it.
 */
export async function startPglite(options: StartPgliteOptions = {}): Promise<RunningPostgres> {
  const maxConnections = options.maxConnections ?? 1;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new Error(`maxConnections must be a positive integer, got ${maxConnections}`);
  }
  const template = await ensurePgliteTemplate();
  await removeOrphanedTempDirs(TEMP_PREFIX);
  const dataDir = await makeTempDir(TEMP_PREFIX);
  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  let gate: SessionGate | undefined;
  const release = async (): Promise<void> => {
    await gate?.close();
    await server?.stop();
    if (db !== undefined && !db.closed) {
      // A connection cut with its transaction open is rolled back by the socket server a tick later, through
      // the database: let that ROLLBACK queue, then queue behind it, so it never meets a closed database.
      await new Promise((resolve) => setImmediate(resolve));
      await db.exec('rollback').catch(() => undefined);
      await db.close();
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await cp(template, dataDir, { recursive: true });
    // A throwaway database: not waiting for each flush halves the time of small writes (measured).
    db = await PGlite.create(dataDir, { relaxedDurability: true });
    // The gate enforces maxConnections; the socket server's own limit only backs it up, with room for
    // sessions the gate gave up waiting for (session-gate.ts).
    const socketServer = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: maxConnections + UPSTREAM_SPARE_CONNECTIONS,
    });
    server = socketServer;
    await socketServer.start();
    gate = await startSessionGate({
      upstreamPort: portOf(socketServer.getServerConn()),
      maxSessions: maxConnections,
      upstreamSessions: () => socketServer.getStats().activeConnections,
      ...(options.admitGraceMs === undefined ? {} : { admitGraceMs: options.admitGraceMs }),
    });
    const port = gate.port;
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://${USER}@127.0.0.1:${port}/${DATABASE}`,
      kind: 'pglite',
      stop: () => {
        stopped ??= release();
        return stopped;
      },
    };
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

/** `127.0.0.1:PORT`, as getServerConn() gives it once the server listens. */
function portOf(serverConn: string): number {
  const port = Number(serverConn.slice(serverConn.lastIndexOf(':') + 1));
  if (!Number.isInteger(port) || port <= 0)
    throw new Error(`PGlite's socket server listens on ${serverConn}`);
  return port;
}

/** Where the template data folders live (git-ignored), one per PGlite version: their format follows it. */
export const PGLITE_TEMPLATE_DIRECTORY = join(CACHE_DIRECTORY, 'pglite');

/**
 * The path of a data folder initdb made for this PGlite version, made on first use (5 to 9 s). Made under a
 * temporary name and renamed into place, so a process that died half way, or two that raced, never leave
 * a half-made template behind.
 */
export async function ensurePgliteTemplate(): Promise<string> {
  const template = join(PGLITE_TEMPLATE_DIRECTORY, `template-${await pgliteVersion()}`);
  if (await isDataDir(template)) return template;
  await mkdir(PGLITE_TEMPLATE_DIRECTORY, { recursive: true });
  const scratch = join(PGLITE_TEMPLATE_DIRECTORY, `making-${process.pid}-${Date.now()}`);
  try {
    const db = await PGlite.create(scratch);
    await db.close();
    await rename(scratch, template);
  } catch (error) {
    // Another process renamed its template into place first: use that one.
    if (!(await isDataDir(template))) throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return template;
}

async function isDataDir(path: string): Promise<boolean> {
  return readFile(join(path, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

async function pgliteVersion(): Promise<string> {
  // The package's exports hide its package.json: find it next to the resolved entry (dist/index.js).
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
