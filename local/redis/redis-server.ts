/**
 * A throwaway Redis from Debian's `redis-server` (7.x) on a free loopback port, ended with this process
 * (local/process/guarded-spawn.ts): in memory, nothing saved to disk (startRedisServer), or durable, its
 * acknowledged writes kept across a crash and restart (startDurableRedisServer, for the soak's server
 * restarts). docs/toolchain.md#redis
 */
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { UserError } from '../../operator/cli/user-error.js';
import { freePort, PortInUseError } from '../dynamodb-local/server.js';
import { makeTempDir, removeOrphanedTempDirs } from '../postgres/running-postgres.js';
import { findOnPath } from '../process/find-on-path.js';
import { CommandNotFoundError, type GuardedProcess, spawnGuarded } from '../process/guarded-spawn.js';
import { waitUntilReady } from '../process/wait-until-ready.js';

/** How to get it, for every message that needs it. */
export const INSTALL_REDIS = 'apt-get install -y redis-server';

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** A server whose acknowledged writes survive a crash: each is in its append-only file before it is answered. */
export interface DurableRedis extends RunningRedis {
  /**
   * Kills the server (SIGKILL: a crash, no orderly shutdown) and starts it again on the same port and data,
   * resolving once it answers again; a call while a restart is under way joins that one.
   */
  restart(): Promise<void>;
  /** Restarts begun so far (a call that joined one under way is not another). */
  readonly restarts: number;
}

export interface RedisServerOptions {
  readonly startTimeoutMs?: number;
}

const PORT_ATTEMPTS = 3;

/** In memory only: no snapshot, no append-only file, nothing left behind. */
const IN_MEMORY = ['--save', '', '--appendonly', 'no'];

/** The data folder's prefix under the system's temporary folder (local/postgres/running-postgres.ts). */
const DURABLE_DATA_PREFIX = 'msk-inbox-redis';

/** Starts redis-server and resolves once it answers PING; a missing program is a person's one-line fix. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RunningRedis> {
  const { port, server } = await startOnFreePort(IN_MEMORY, options);
  return { url: urlOf(port), port, stop: () => server.stop() };
}

/**
 * Starts redis-server with an append-only file fsynced before every answer (`appendfsync always`), in a
 * data folder of its own removed at stop: a write it acknowledged is still there after restart().
 */
export async function startDurableRedisServer(options: RedisServerOptions = {}): Promise<DurableRedis> {
  await removeOrphanedTempDirs(DURABLE_DATA_PREFIX);
  const dir = await makeTempDir(DURABLE_DATA_PREFIX);
  const args = ['--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
  let started: { port: number; server: GuardedProcess };
  try {
    started = await startOnFreePort(args, options);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const { port } = started;
  let server = started.server;
  let restarting: Promise<void> | undefined;
  let restarts = 0;
  const restart = async () => {
    restarts += 1;
    await crash(server);
    server = await startOn(port, args, options);
  };
  return {
    url: urlOf(port),
    port,
    restart() {
      restarting ??= restart().finally(() => {
        restarting = undefined;
      });
      return restarting;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      await restarting?.catch(() => undefined);
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function startOnFreePort(
  args: readonly string[],
  options: RedisServerOptions,
): Promise<{ port: number; server: GuardedProcess }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      return { port, server: await startOn(port, args, options) };
    } catch (error) {
      // A free port can be taken between the kernel's answer and the server's bind: then another one.
      if (!(error instanceof PortInUseError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function startOn(
  port: number,
  args: readonly string[],
  options: RedisServerOptions,
): Promise<GuardedProcess> {
  let server: GuardedProcess;
  try {
    server = await spawnGuarded('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...args]);
  } catch (error) {
    if (error instanceof CommandNotFoundError) {
      throw new UserError(`redis-server is not installed: ${INSTALL_REDIS}`, { cause: error });
    }
    throw error;
  }
  try {
    await waitUntilReady(server, {
      name: 'redis-server',
      port,
      // While it loads its append-only file it answers -LOADING: not yet ready.
      answers: () => pongs(port),
      portInUse: /Address already in use/,
      timeoutMs: options.startTimeoutMs ?? 10_000,
      intervalMs: 25,
    });
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The server dies as in a crash; resolves once it (and its guard) are gone. */
async function crash(server: GuardedProcess): Promise<void> {
  const exited = server.guard.exitCode === null ? once(server.guard, 'exit') : Promise.resolve();
  try {
    process.kill(server.pid, 'SIGKILL');
  } catch {
    // Gone already: there is nothing to kill.
  }
  await exited;
}

function urlOf(port: number): string {
  return `redis://127.0.0.1:${port}`;
}

function pongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Whether redis-server is on the PATH: a look only. */
export function isRedisInstalled(): boolean {
  return findOnPath('redis-server') !== undefined;
}
