import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { UserError } from '../../operator/cli/user-error.js';
import { CACHE_DIRECTORY } from '../project-paths.js';

const run = promisify(execFile);

/** The npm package that ships the official DynamoDB Local jar (folder package/emulator). */
export const DYNAMODB_LOCAL_PACKAGE = 'amplify-dynamodb-simulator@2.9.30';

/** Where the jar is cached: an ignored folder, never committed. */
export const defaultJarDirectory = join(CACHE_DIRECTORY, 'dynamodb-local');

/**
 * Returns the folder holding DynamoDBLocal.jar, fetching it from the npm registry on first use.
 * `npm pack` plus extracting one folder is far lighter than installing the package (docs/toolchain.md#dynamodb-local).
 */
export async function ensureDynamoDbLocalJar(directory = defaultJarDirectory): Promise<string> {
  if (existsSync(join(directory, 'DynamoDBLocal.jar'))) return directory;
  const parent = resolve(directory, '..');
  await mkdir(parent, { recursive: true });
  const work = await mkdtemp(join(parent, 'fetch-'));
  try {
    const { stdout } = await run(
      'npm',
      ['pack', DYNAMODB_LOCAL_PACKAGE, '--silent', '--pack-destination', work],
      { cwd: work },
    ).catch((error: unknown) => {
      throw new UserError(
        `could not fetch DynamoDB Local (npm pack ${DYNAMODB_LOCAL_PACKAGE}): check that the npm registry can be reached (proxy, network), then run again`,
        { cause: error },
      );
    });
    const tarball = stdout.trim().split('\n').pop();
    if (!tarball) throw new Error(`npm pack ${DYNAMODB_LOCAL_PACKAGE} printed no file name`);
    await run('tar', ['-xzf', join(work, tarball), '-C', work, 'package/emulator']);
    // Another process may have won the race; either copy is the same jar.
    if (!existsSync(join(directory, 'DynamoDBLocal.jar'))) {
      await rename(join(work, 'package', 'emulator'), directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    }
    return directory;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
