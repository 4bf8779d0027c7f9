/**
 * A throwaway Redis from Debian's `redis-server` (7.x): one server on a free loopback port, nothing saved
 * to disk, ended with this process (local/process/guarded-spawn.ts). docs/toolchain.md#redis
 */
import { createConnection } from 'node:net';
import { UserError } from '../../operator/cli/user-error.js';
import { freePort, PortInUseError } from '../dynamodb-local/server.js';
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

const PORT_ATTEMPTS = 3;

/** Starts redis-server and resolves once it answers PING; a missing program is a person's one-line fix. */
export async function startRedisServer(
  options: { readonly startTimeoutMs?: number } = {},
): Promise<RunningRedis> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    let server: GuardedProcess;
    try {
      server = await spawnGuarded('redis-server', [
        ...['--port', String(port), '--bind', '127.0.0.1'],
        // In memory only: no snapshot, no append-only file, nothing left behind.
        ...['--save', '', '--appendonly', 'no'],
      ]);
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
        answers: () => pongs(port),
        portInUse: /Address already in use/,
        timeoutMs: options.startTimeoutMs ?? 10_000,
        intervalMs: 25,
      });
      return { url: `redis://127.0.0.1:${port}`, port, stop: () => server.stop() };
    } catch (error) {
      await server.stop();
      // A free port can be taken between the kernel's answer and the server's bind: then another one.
      if (!(error instanceof PortInUseError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
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
