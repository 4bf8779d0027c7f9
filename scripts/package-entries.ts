/**
 * The package's public entries, read from package.json `exports` so that a new entry is reported and
 * documented without being listed a second time (scripts/api-report.ts, scripts/api-docs.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

export interface PackageEntry {
  /** As a user imports it: `msk-inbox`, `msk-inbox/avro`. */
  readonly specifier: string;
  /** A file name without `/`: `msk-inbox`, `msk-inbox-avro`. */
  readonly reportName: string;
  /** The built declarations `exports` points at, relative to the project: `dist/lib/index.d.ts`. */
  readonly types: string;
  /** The TypeScript it is built from: `lib/index.ts`. */
  readonly source: string;
}

interface Manifest {
  readonly name: string;
  readonly exports: Readonly<Record<string, { readonly types: string }>>;
}

export function packageEntries(): PackageEntry[] {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Manifest;
  return Object.entries(manifest.exports).map(([subpath, target]) => {
    const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`;
    const types = target.types.replace(/^\.\//, '');
    // tsconfig.build.json keeps the source tree under dist/ (rootDir '.'), so the path maps back.
    const source = types.replace(/^dist\//, '').replace(/\.d\.ts$/, '.ts');
    if (!existsSync(join(PROJECT_ROOT, source))) {
      throw new Error(
        `package.json exports "${subpath}" types ${types}: no source ${source} to build it from`,
      );
    }
    return { specifier, reportName: specifier.replaceAll('/', '-'), types, source };
  });
}
