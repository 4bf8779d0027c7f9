/**
 * Builds the order consumer exactly as CDK deploys it (lib/bundling.ts: HANDLER_BUNDLE) and reads the
 * size from esbuild's metafile, with the heaviest packages, so a regression names its cause.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { HANDLER_BUNDLE, ORDER_CONSUMER_ENTRY } from '../../lib/bundling.js';

/**
 * Proposed for lib/bundling.ts: the SDK's default Node.js credential chain swapped for the chain a Lambda
 * function can use (lambdas/core/lambda-credential-provider.ts). Measured beside the deployed bundle.
 */
export const PROPOSED_CREDENTIAL_ALIAS: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': resolve(
    import.meta.dirname,
    '..',
    '..',
    'lambdas',
    'core',
    'lambda-credential-provider.ts',
  ),
};

export interface BundleMeasurement {
  readonly file: string;
  /** The minified JavaScript file, source map excluded. */
  readonly bytes: number;
  /** Bytes each package (or our own folder) contributes to it, largest first. */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
}

export async function measureBundle(
  outDirectory: string,
  extra: { readonly alias?: Readonly<Record<string, string>> } = {},
): Promise<BundleMeasurement> {
  await mkdir(outDirectory, { recursive: true });
  // NodejsFunction names an ESM bundle index.mjs.
  const file = join(outDirectory, 'index.mjs');
  const result = await build({
    entryPoints: [ORDER_CONSUMER_ENTRY],
    outfile: file,
    bundle: true,
    target: HANDLER_BUNDLE.target,
    platform: HANDLER_BUNDLE.platform,
    format: HANDLER_BUNDLE.format,
    mainFields: [...HANDLER_BUNDLE.mainFields],
    minify: HANDLER_BUNDLE.minify,
    sourcemap: HANDLER_BUNDLE.sourcemap,
    external: [...HANDLER_BUNDLE.external],
    banner: { js: HANDLER_BUNDLE.banner },
    alias: extra.alias ? { ...extra.alias } : undefined,
    metafile: true,
    logLevel: 'error',
  });
  const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('index.mjs'));
  if (!output) throw new Error('esbuild wrote no index.mjs');
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output[1].inputs)) {
    const name = packageOf(input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return {
    file,
    bytes: output[1].bytes,
    byPackage: [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
  };
}

function packageOf(input: string): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (inModules?.[1]) return inModules[1];
  return input.split('/').slice(0, 2).join('/');
}
