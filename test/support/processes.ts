import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OWNER_PROPERTY } from '../../local/dynamodb-local/server.js';
import { findOnPath } from '../../local/process/find-on-path.js';

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of the DynamoDB Local JVMs that the process `ownerPid` started, read from `ps`. */
export function dynamoDbLocalPidsOwnedBy(ownerPid: number): number[] {
  const marker = `-D${OWNER_PROPERTY}=${ownerPid} `;
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/**
 * A PATH that holds only the named programs (linked from today's PATH), as on a machine that has nothing
 * else: a program left out is missing. `remove()` deletes the folder.
 */
export function pathWithOnly(programs: readonly string[]): { readonly path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'msk-inbox-path-'));
  for (const program of programs) {
    const found = findOnPath(program);
    if (found !== undefined) symlinkSync(found, join(folder, program));
  }
  return { path: folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
