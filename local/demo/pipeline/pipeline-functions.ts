/**
 * The pipeline's three functions, each the very bundle its construct deploys (lib/bundling.ts's esbuild
 * settings), in the worker-thread runtime: the order consumer that emits through the outbox, the outbox
 * relay, and the payment consumer. Their environments are what the constructs set, plus what Lambda's
 * runtime provides.
 */
import { join, resolve } from 'node:path';
import { RELAY_ENTRY } from '../../../lib/bundling.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../dynamodb-local/client.js';
import { buildBundles } from '../../lambda-runtime/build-bundles.js';
import { PROJECT_ROOT } from '../../project-paths.js';

export const PIPELINE_FUNCTIONS = {
  orders: {
    name: 'order-consumer',
    entry: join(PROJECT_ROOT, 'sample', 'order-consumer', 'emitting-handler.ts'),
  },
  relay: { name: 'outbox-relay', entry: resolve(RELAY_ENTRY) },
  payments: {
    name: 'payment-consumer',
    entry: join(PROJECT_ROOT, 'sample', 'payment-consumer', 'handler.ts'),
  },
} as const;

export type PipelineFunctionName = keyof typeof PIPELINE_FUNCTIONS;

export interface PipelineBundle {
  readonly handlerPath: string;
  readonly handlerExport: string;
  readonly runtimePath: string;
}

/** Builds the three bundles at once. */
export async function buildPipelineBundles(
  directory: string,
): Promise<Record<PipelineFunctionName, PipelineBundle>> {
  const names = Object.keys(PIPELINE_FUNCTIONS) as PipelineFunctionName[];
  const built = await Promise.all(
    names.map((name) => buildBundles(join(directory, 'pipeline', name), PIPELINE_FUNCTIONS[name])),
  );
  return Object.fromEntries(names.map((name, index) => [name, built[index]])) as Record<
    PipelineFunctionName,
    PipelineBundle
  >;
}

/** What Lambda's runtime gives every function here. */
export function lambdaEnvironment(functionName: string, logLevel: string): Record<string, string> {
  return {
    POWERTOOLS_LOG_LEVEL: logLevel,
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
