/**
 * Fresh Node.js processes that load the built bundle the way Lambda's runtime does (a dynamic import of
 * index.mjs with the function's variables set), so cold-start and memory figures include nothing of the
 * bench itself: no tsx loader, no bench modules, no warm caches.
 */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local/client.js';

export const run = promisify(execFile);

/** A fresh process's variables: the function's own and PATH, nothing else of the bench's environment. */
export function freshNodeEnvironment(env: Readonly<Record<string, string>>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...env };
}

/** The order consumer's own variables in a fresh process: its tables and DynamoDB Local's credentials. */
export function orderConsumerVariables(tables: {
  readonly inbox: string;
  readonly app: string;
}): Record<string, string> {
  return {
    INBOX_TABLE_NAME: tables.inbox,
    APP_TABLE_NAME: tables.app,
    CONSUMER_NAME: 'order-consumer',
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: 'order-consumer',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** Statements that import the bundle as Lambda's runtime does into `module`, refusing one without a handler. */
export function handlerImportSource(bundleFile: string): string {
  return `const module = await import(${JSON.stringify(moduleUrl(bundleFile))});
    if (typeof module.handler !== 'function') throw new Error('no handler export');`;
}

/** The last line a child prints is one JSON object with its figures. */
export async function runInFreshNode<T>(
  script: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<T> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: freshNodeEnvironment(env),
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = stdout.trim().split('\n').pop();
  if (!last) throw new Error('the child process printed nothing');
  return JSON.parse(last) as T;
}

export function moduleUrl(file: string): string {
  return pathToFileURL(file).href;
}

/** A Lambda context for a handler called by hand; the deadline is far enough for any batch here. */
export const CHILD_CONTEXT_SOURCE = `{
  functionName: 'order-consumer', functionVersion: '$LATEST', awsRequestId: 'bench',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:order-consumer',
  memoryLimitInMB: '1024', logGroupName: '/aws/lambda/order-consumer', logStreamName: 'bench',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 900000 }`;
