/**
 * Builds what the local runtime runs: the function bundle, with the very esbuild settings the CDK deploy
 * uses (lib/bundling.ts), and the runtime worker that hosts it. Both land in an ignored folder.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { HANDLER_BUNDLE, handlerBuildOptions } from '../../lib/bundling.js';
import { ORDER_CONSUMER_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { LOCAL_RUN_DIRECTORY } from '../project-paths.js';

export interface BuiltBundles {
  readonly handlerPath: string;
  readonly handlerExport: string;
  readonly runtimePath: string;
}

export async function buildBundles(
  outDirectory = join(LOCAL_RUN_DIRECTORY, 'bundles'),
  handler: { readonly entry: string; readonly name: string } = {
    entry: ORDER_CONSUMER_ENTRY,
    name: 'order-consumer',
  },
): Promise<BuiltBundles> {
  // NodejsFunction names an ESM bundle index.mjs.
  const handlerPath = join(outDirectory, handler.name, 'index.mjs');
  const [runtimePath] = await Promise.all([
    buildRuntimeWorker(outDirectory),
    build(handlerBuildOptions(handler.entry, handlerPath)),
  ]);
  return { handlerPath, handlerExport: HANDLER_BUNDLE.handlerExport, runtimePath };
}

/** Builds only the runtime worker (for hosting another handler module); returns its path. */
export async function buildRuntimeWorker(outDirectory: string): Promise<string> {
  const runtimePath = join(outDirectory, 'runtime-worker.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'runtime-worker.ts')],
    outfile: runtimePath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The local tracing SDK (file-tracing.ts) is CommonJS that requires Node's modules, as the handler's SDK is.
    banner: { js: HANDLER_BUNDLE.banner },
    logLevel: 'error',
  });
  return runtimePath;
}
