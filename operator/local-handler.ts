/**
 * `--handler FILE`: the consumer's Lambda handler, loaded in this process with the environment the
 * function has, and invoked as Lambda would. What the handler prints (its logs, its metrics) goes to
 * stderr, so stdout carries only the tool's own output (`--json` stays parseable).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { KafkaBatchResponse, KafkaEvent } from '../lambdas/core/kafka-event.js';
import { UserError } from './cli/user-error.js';
import type { OperatorTarget } from './operator-target.js';

export type Invoke = (event: KafkaEvent) => Promise<KafkaBatchResponse | undefined>;

/** As long as a replayed record may take: Lambda's longest timeout. */
const REPLAY_TIMEOUT_MS = 900_000;

/**
 * The variables the function gets from the KafkaConsumer construct, for this target: its consumer, and how
 * its inbox is reached (OperatorInbox.consumerEnvironment: the table, signed as the tool signs with the SDK's
 * own chain and the local pair only where the tool fell back to it; or the Postgres connection).
 */
export function functionEnvironment(target: OperatorTarget): Record<string, string> {
  return {
    ...target.inbox.consumerEnvironment().variables,
    CONSUMER_NAME: target.consumer,
    ...(target.region === undefined ? {} : { AWS_REGION: target.region }),
    ...(target.profile === undefined ? {} : { AWS_PROFILE: target.profile }),
  };
}

/**
 * Whether a handler was loaded in this process. Its connections are its own (a Redis client, a database
 * pool), which the tool cannot end, and they would keep it alive once its work is done (operator-main.ts).
 */
let handlerLoaded = false;

export function localHandlerLoaded(): boolean {
  return handlerLoaded;
}

export async function loadLocalHandler(file: string, target: OperatorTarget): Promise<Invoke> {
  const path = resolve(file);
  if (!existsSync(path)) throw new UserError(`--handler ${file}: no such file`);
  handlerLoaded = true;
  // Set before the import: handlers read their configuration when they are created.
  Object.assign(process.env, functionEnvironment(target));
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // The outcome table names each record's reason; POWERTOOLS_LOG_LEVEL=INFO shows the handler's own logs.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const module = (await quietly(() => import(pathToFileURL(path).href)).catch((error: unknown) => {
    if ((error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new UserError(`--handler ${file} is TypeScript: give the built bundle (.js or .mjs)`, {
        cause: error,
      });
    }
    throw error;
  })) as Record<string, unknown>;
  const handler = module.handler ?? (module.default as Record<string, unknown> | undefined)?.handler;
  if (typeof handler !== 'function') {
    throw new UserError(`--handler ${file} exports no function named handler`);
  }
  return (event) => {
    const deadline = Date.now() + REPLAY_TIMEOUT_MS;
    const context = {
      functionName: `${target.consumer}-replay`,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${target.region ?? 'us-east-1'}:000000000000:function:${target.consumer}-replay`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${target.consumer}-replay`,
      logStreamName: 'msk-inbox-replay',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } satisfies Context;
    return quietly(() =>
      (handler as (e: unknown, c: Context) => Promise<KafkaBatchResponse | undefined>)(event, context),
    );
  };
}

/** Runs `work` with stdout's writes sent to stderr. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
}
