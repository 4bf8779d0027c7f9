/**
 * The order consumer's deployed bundle (built by buildBundles into `bundleDirectory`) in the worker-thread
 * runtime, quiet (no log lines, no EMF) and with DynamoDB Local's credentials, plus the function's own
 * variables: how the tests that drive the very bundle CDK deploys start it.
 */
import { join } from 'node:path';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local/client.js';
import { WorkerFunction } from '../../local/lambda-runtime/worker-function.js';

export function orderConsumerBundle(options: {
  readonly bundleDirectory: string;
  readonly dynamoDbEndpoint: string;
  readonly functionName: string;
  readonly environment: Readonly<Record<string, string>>;
}): WorkerFunction {
  return new WorkerFunction({
    runtimePath: join(options.bundleDirectory, 'runtime-worker.mjs'),
    handlerPath: join(options.bundleDirectory, 'order-consumer', 'index.mjs'),
    functionName: options.functionName,
    dynamoDbEndpoint: options.dynamoDbEndpoint,
    environment: {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...options.environment,
    },
  });
}
