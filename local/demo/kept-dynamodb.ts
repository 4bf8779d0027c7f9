/**
 * `npm start -- --keep`: a DynamoDB Local that outlives the demo, so an operator can try `msk-inbox` on
 * the demo's quarantine rows. Unlike the one startDynamoDbLocal starts (which ends with its parent), this
 * JVM is detached: it runs until `kill <pid>`. Its arguments are startDynamoDbLocal's (server.ts), with
 * -sharedDb.
 */
import { spawn } from 'node:child_process';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ORDER_CONSUMER_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { ensureDynamoDbLocalJar } from '../dynamodb-local/jar.js';
import { assertJavaRuntime } from '../dynamodb-local/java-runtime.js';
import {
  answers,
  dynamoDbLocalArguments,
  dynamoDbLocalEnvironment,
  freePort,
} from '../dynamodb-local/server.js';
import type { OrderValueFormat } from '../orders/order-avro.js';
import { displayPath } from '../project-paths.js';
import type { KeptInvokeApi } from './kept-invoke-api.js';
import { ORDERS_FUNCTION_ENTRY } from './orders-function-bundle.js';

export interface KeptDynamoDbLocal {
  readonly endpoint: string;
  readonly pid: number;
  /** Ends it, for a run that failed: nothing is kept then. */
  stop(): void;
}

const START_TIMEOUT_MS = 30_000;

export async function startKeptDynamoDbLocal(): Promise<KeptDynamoDbLocal> {
  assertJavaRuntime();
  const jarDirectory = await ensureDynamoDbLocalJar();
  const port = await freePort();
  // -sharedDb: `msk-inbox --endpoint` signs with the operator's own credentials where their shell has some
  // (operator/local-fallback.ts), and the demo made its tables under the local pair; one database for every
  // key and region lets the printed lines work from any shell.
  const jvm = spawn('java', dynamoDbLocalArguments(jarDirectory, port, true), {
    detached: true,
    stdio: 'ignore',
    env: dynamoDbLocalEnvironment(),
  });
  jvm.unref();
  const pid = jvm.pid;
  if (pid === undefined) throw new Error('java did not start');
  const stop = () => {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(endpoint))) {
    if (Date.now() > deadline || jvm.exitCode !== null) {
      stop();
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${START_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint, pid, stop };
}

/** The demo's table names on the kept instance: it holds only the demo's tables. */
export async function demoTableNames(endpoint: string): Promise<{ inbox: string; app: string }> {
  const { TableNames = [] } = await localDynamoDbClient(endpoint).send(new ListTablesCommand({}));
  return {
    inbox: TableNames.find((name) => name.startsWith('demo-inbox-')) ?? 'demo-inbox-?',
    app: TableNames.find((name) => name.startsWith('demo-app-')) ?? 'demo-app-?',
  };
}

/** What to print after a kept run: where it is, what to try, how to stop it (no path of this machine). */
export function keptLines(
  kept: KeptDynamoDbLocal,
  consumer: string,
  tables: { inbox: string; app: string },
  invokeApi: KeptInvokeApi,
  functionName: string,
  format: OrderValueFormat,
): string[] {
  // The handler the run's bundle was built from: the sample's (JSON only), or the harness's for Avro.
  const handler =
    format === 'json'
      ? `APP_TABLE_NAME=${tables.app} npx msk-inbox quarantine replay --all --handler ${displayPath(ORDER_CONSUMER_ENTRY)}`
      : `APP_TABLE_NAME=${tables.app} VALUE_FORMAT=${format} npx msk-inbox quarantine replay --all --handler ${displayPath(ORDERS_FUNCTION_ENTRY)}`;
  const target = `--endpoint ${kept.endpoint} --consumer ${consumer} --table ${tables.inbox}`;
  const throughLambda = `--endpoint ${kept.endpoint} --lambda-endpoint ${invokeApi.endpoint} --function ${functionName} --consumer ${consumer} --table ${tables.inbox}`;
  return [
    '',
    `DynamoDB Local is still running at ${kept.endpoint} (pid ${kept.pid}), with the demo's tables:`,
    `  consumer ${consumer}, inbox table ${tables.inbox}, app table ${tables.app}`,
    `and the demo's function ${functionName}, through Lambda's Invoke API at ${invokeApi.endpoint} (pid ${invokeApi.pid}; log ${displayPath(invokeApi.logPath)}):`,
    `  its quarantined records:  npx msk-inbox quarantine list ${target}`,
    `  replay them:              npx msk-inbox quarantine replay --all ${throughLambda}`,
    `  or in this process:       ${handler} ${target}`,
    `  stop them:                kill ${kept.pid} ${invokeApi.pid}`,
  ];
}
