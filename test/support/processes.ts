import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { OWNER_PROPERTY } from '../../local/dynamodb-local/server.js';

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
 * A PATH like this one with the named programs hidden, as on a machine that lacks them: each folder that
 * holds one is replaced by a folder of links to everything else in it.
 */
export function pathWithout(programs: readonly string[], path = process.env.PATH ?? ''): string {
  const shadowRoot = mkdtempSync(join(tmpdir(), 'msk-inbox-path-'));
  return path
    .split(delimiter)
    .filter((directory) => directory !== '')
    .map((directory, index) => {
      let entries: string[];
      try {
        entries = readdirSync(directory);
      } catch {
        return directory;
      }
      if (!programs.some((program) => entries.includes(program))) return directory;
      const shadow = join(shadowRoot, String(index));
      mkdirSync(shadow);
      for (const entry of entries) {
        if (!programs.includes(entry)) symlinkSync(join(directory, entry), join(shadow, entry));
      }
      return shadow;
    })
    .join(delimiter);
}
