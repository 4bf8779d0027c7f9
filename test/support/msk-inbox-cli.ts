/**
 * The real `msk-inbox` command (bin/msk-inbox.mjs, as `npx msk-inbox` runs it in this checkout), spawned
 * with no AWS credentials anywhere the SDK looks, for the e2e tests of what a person sees.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../local/project-paths.js';

const BIN = join(PROJECT_ROOT, 'bin', 'msk-inbox.mjs');

/** No credentials anywhere the SDK looks: not in the variables, not in files, not from a metadata service. */
export const WITHOUT_CREDENTIALS: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  AWS_CONFIG_FILE: '/nonexistent/config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
  AWS_EC2_METADATA_DISABLED: 'true',
};

export interface Spawned {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `msk-inbox ARGS` to its end; a non-zero exit is a result, not a throw. */
export async function mskInbox(
  args: readonly string[],
  env: NodeJS.ProcessEnv = WITHOUT_CREDENTIALS,
): Promise<Spawned> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', [BIN, ...args], { env, cwd: PROJECT_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Exit code 2 and exactly one line on stderr, nothing on stdout. */
export function expectOneLine(result: Spawned, line: string | RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
  expect(result.code).toBe(2);
}
