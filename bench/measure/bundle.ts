/**
 * Builds the order consumer without tracing (or another entry: the Powertools contender's, the traced sample)
 * exactly as CDK deploys it (lib/bundling.ts: handlerBuildOptions) and reads the
 * size from esbuild's metafile, with the heaviest packages, so a regression names its cause.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { handlerBuildOptions } from '../../lib/bundling.js';
import { UNTRACED_ORDER_CONSUMER_ENTRY } from '../contenders/powertools-entry.js';

export interface BundleMeasurement {
  readonly file: string;
  /** The minified JavaScript file, source map excluded. */
  readonly bytes: number;
  /** Bytes each package (or our own folder) contributes to it, largest first. */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
}

export async function measureBundle(
  outDirectory: string,
  variant: 'deployed' | 'sdk-default-credentials' = 'deployed',
  entry: string = UNTRACED_ORDER_CONSUMER_ENTRY,
): Promise<BundleMeasurement> {
  await mkdir(outDirectory, { recursive: true });
  // NodejsFunction names an ESM bundle index.mjs.
  const file = join(outDirectory, 'index.mjs');
  const options = handlerBuildOptions(entry, file);
  const result = await build({
    ...options,
    // The ablation: what the bundle weighs with the SDK's default Node.js credential chain.
    alias: variant === 'deployed' ? options.alias : {},
    metafile: true,
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
