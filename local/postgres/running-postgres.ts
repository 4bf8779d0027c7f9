/**
 * What the local Postgres launchers return (local/postgres/pglite-server.ts, local/postgres/debian-postgres.ts),
 * and the scratch folders they keep their data in.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `pglite`: PGlite (Postgres compiled to WASM, in this process); `postgresql`: Debian's Postgres server. */
export type PostgresKind = 'pglite' | 'postgresql';

export interface RunningPostgres {
  /** `postgres://user@127.0.0.1:PORT/db`: no password, no TLS. */
  readonly url: string;
  readonly kind: PostgresKind;
  /** End your pg pools first: the server waits for no client. */
  stop(): Promise<void>;
}

/**
 * A fresh folder under the system's temporary folder, named with this process's pid, so that a later start
 * can tell it from a live run's folder and remove it (removeOrphanedTempDirs) when this process died
 * before its stop() ran.
 */
export function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `${prefix}-${process.pid}-`));
}

/** Removes the folders of makeTempDir(prefix) whose process is gone; any failure is left for next time. */
export async function removeOrphanedTempDirs(prefix: string): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => []);
  const pattern = new RegExp(`^${prefix}-(\\d+)-`);
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(pattern.exec(name)?.[1]);
      if (!Number.isInteger(pid) || pid === 0 || isAlive(pid)) return;
      await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    }),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
