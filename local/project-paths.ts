/** Where the local tools keep their files: one definition, relative to the checkout. */
import { isAbsolute, join, relative, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

/** Git-ignored: bundles, function logs and the on-failure folder of `npm start`. */
export const LOCAL_RUN_DIRECTORY = join(PROJECT_ROOT, '.local-run');

/** Git-ignored: the DynamoDB Local jar, the bench's scratch files, test results. */
export const CACHE_DIRECTORY = join(PROJECT_ROOT, '.cache');

/**
 * A path as a person should see it: relative to the project when it lies inside it, so printed output
 * never names the machine it was made on.
 */
export function displayPath(path: string): string {
  const inside = relative(PROJECT_ROOT, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}
