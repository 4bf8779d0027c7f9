/**
 * The package's own folder, found from this file whether it runs from source (operator/cli/) or built
 * (dist/operator/cli/), in a checkout or in node_modules/msk-inbox: printed text names paths relative to it,
 * so output never names the machine it was made on.
 */
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

function findPackageRoot(start: string): string {
  let folder = start;
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) return start;
    folder = parent;
  }
  return folder;
}

export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname);

/** Text (an error message, a program's output) with the package's folder written relative to it. */
export function withoutPackageRoot(text: string): string {
  return text.replaceAll(`${PACKAGE_ROOT}${sep}`, '').replaceAll(PACKAGE_ROOT, '.');
}
