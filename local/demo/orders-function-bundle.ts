/**
 * The function bundle of `npm start -- --format avro`: the harness's order consumer
 * (local/orders/orders-function.ts) built with the very esbuild settings CDK deploys (lib/bundling.ts),
 * beside the runtime worker that hosts it. The sample's bundle (build-bundles.ts) stays JSON-only, so it
 * carries neither avsc nor protobufjs.
 */
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { HANDLER_BUNDLE, handlerBuildOptions } from '../../lib/bundling.js';
import { type BuiltBundles, buildRuntimeWorker } from '../lambda-runtime/build-bundles.js';

export const ORDERS_FUNCTION_ENTRY = resolve(import.meta.dirname, '..', 'orders', 'orders-function.ts');

export async function buildOrdersFunctionBundles(outDirectory: string): Promise<BuiltBundles> {
  // NodejsFunction names an ESM bundle index.mjs.
  const handlerPath = join(outDirectory, 'orders-function', 'index.mjs');
  const [runtimePath] = await Promise.all([
    buildRuntimeWorker(outDirectory),
    build(handlerBuildOptions(ORDERS_FUNCTION_ENTRY, handlerPath)),
  ]);
  return { handlerPath, handlerExport: HANDLER_BUNDLE.handlerExport, runtimePath };
}
