/**
 * Starts a long-lived helper program (DynamoDB Local's JVM) so that it can never outlive this process:
 * it runs under local/process/exit-with-parent.mjs, which ends it when our end of its stdin closes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { UserError } from '../../operator/cli/user-error.js';
import { stopChild } from './stop-child.js';

const GUARD_SCRIPT = join(import.meta.dirname, 'exit-with-parent.mjs');

/** The program is not on the PATH (or not executable): a person installs it. */
export class CommandNotFoundError extends UserError {
  constructor(
    readonly command: string,
    options?: ErrorOptions,
  ) {
    super(`${command} is not on the PATH: install it, or put the folder that holds it on the PATH`, options);
    this.name = 'CommandNotFoundError';
  }
}

export interface GuardedProcess {
  /** The program's own pid (not the guard's). */
  readonly pid: number;
  /** The guard: it exits with the program's code, and its stdout and stderr are the program's. */
  readonly guard: ChildProcess & { readonly stdout: Readable; readonly stderr: Readable };
  /** SIGTERM, then SIGKILL after a grace period; resolves once the program has exited. */
  stop(): Promise<void>;
}

export interface GuardedSpawnOptions {
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Run the guard, and so the program, as this user and group (root only): for programs that refuse to run
   * as root, such as Postgres. Node drops the supplementary groups too.
   */
  readonly uid?: number;
  readonly gid?: number;
}

/** Runs `command args` under the guard; resolves once the program runs, with its pid. */
export async function spawnGuarded(
  command: string,
  args: readonly string[],
  options: GuardedSpawnOptions = {},
): Promise<GuardedProcess> {
  const guard = spawn(process.execPath, [GUARD_SCRIPT, command, ...args], {
    env: options.env ?? process.env,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
    // stdin is the lifeline (never written); fd 3 tells the program's pid or why it did not start.
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  }) as GuardedProcess['guard'];
  const report = await firstLine(guard.stdio[3] as Readable);
  const [kind, detail] = report?.split(' ') ?? [];
  if (kind !== 'pid' || detail === undefined) {
    await stopGuard(guard);
    if (detail === 'ENOENT' || detail === 'EACCES') throw new CommandNotFoundError(command);
    throw new Error(`${command} did not start: ${detail ?? 'the guard exited first'}`);
  }
  return { pid: Number(detail), guard, stop: () => stopGuard(guard) };
}

function firstLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: stream });
    lines.once('line', (line) => {
      // Before close(): its 'close' event fires synchronously.
      resolve(line);
      lines.close();
    });
    lines.once('close', () => resolve(undefined));
  });
}

/** Longer than the guard's own grace period, so the guard gets to SIGKILL the program first. */
const GUARD_STOP_TIMEOUT_MS = 6000;

function stopGuard(guard: ChildProcess): Promise<void> {
  return stopChild(guard, { killAfterMs: GUARD_STOP_TIMEOUT_MS });
}
