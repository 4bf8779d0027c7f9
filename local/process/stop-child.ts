import type { ChildProcess } from 'node:child_process';

export interface StopChildOptions {
  /** End its stdin first: a program that blocks reading stdin (kcat -P) notices SIGTERM only after that. */
  readonly closeStdin?: boolean;
  /** SIGKILL after this long. @default 5000 */
  readonly killAfterMs?: number;
}

/** SIGTERM, then SIGKILL if it is still there after the grace period; resolves once it has exited. */
export async function stopChild(child: ChildProcess, options: StopChildOptions = {}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (options.closeStdin) child.stdin?.end();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 5000);
  await exited;
  clearTimeout(timer);
}
