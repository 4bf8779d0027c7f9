/**
 * Waiting for a helper program started with spawnGuarded (DynamoDB Local, Postgres, redis-server) to
 * answer: its output collected for the error, a bind failure told apart (PortInUseError, so the caller
 * tries another port), an early exit reported with what it printed, and its pipes drained once it is up
 * so a full pipe never blocks it.
 */

import type { GuardedProcess } from './guarded-spawn.js';
import { PortInUseError } from './port-in-use-error.js';

export interface ReadyCheck {
  /** The program, for messages: `DynamoDB Local`, `postgres`. */
  readonly name: string;
  readonly port: number;
  /** Whether it answers yet. */
  readonly answers: () => Promise<boolean>;
  /** What it prints when its port was taken. */
  readonly portInUse: RegExp;
  readonly timeoutMs: number;
  /** Between two checks. */
  readonly intervalMs: number;
}

/** How much of the program's output an error quotes. */
const OUTPUT_KEPT = 4_000;

export async function waitUntilReady(server: GuardedProcess, check: ReadyCheck): Promise<void> {
  const { guard } = server;
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  guard.stdout.on('data', collect);
  guard.stderr.on('data', collect);
  const deadline = Date.now() + check.timeoutMs;
  while (Date.now() < deadline) {
    if (check.portInUse.test(output)) throw new PortInUseError(check.port);
    if (guard.exitCode !== null)
      throw new Error(`${check.name} exited with code ${guard.exitCode}: ${output}`);
    if (await check.answers()) {
      guard.stdout.off('data', collect).resume();
      guard.stderr.off('data', collect).resume();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, check.intervalMs));
  }
  throw new Error(
    `${check.name} did not answer on port ${check.port} within ${check.timeoutMs} ms: ${output}`,
  );
}
