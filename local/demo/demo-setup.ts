/**
 * What a demo run needs before the mapping starts, started at the same time: DynamoDB Local (then the
 * tables), the function bundle, and the record log (the Kafka broker, the produced workload and the
 * consumer group's join, at the same time as the producing). None of the three waits for another, so setup
 * lasts as long as the slowest: with the broker, the group join, which the broker holds for 3 s when the
 * group is new (the mock cluster does so always; a Kafka broker's group.initial.rebalance.delay.ms is 3 s
 * by default). A Lambda event source mapping joins its group in the same way, whether or not records wait.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { type DynamoDbLocal, QUICK_START_JVM_OPTIONS, startDynamoDbLocal } from '../dynamodb-local/server.js';
import { createAppTable, createInboxTable } from '../dynamodb-local/tables.js';
import type { ProducedRecord } from '../esm/record-source.js';
import { type BuiltBundles, buildBundles } from '../lambda-runtime/build-bundles.js';
import { type DemoLog, type DemoLogOptions, openDemoLog } from './demo-log.js';
import { POSTGRES_BUNDLE } from './demo-postgres.js';
import { REDIS_BUNDLE } from './demo-redis.js';
import { buildOrdersFunctionBundles } from './orders-function-bundle.js';

export interface DemoSetupOptions {
  /** A running DynamoDB (Local); undefined starts one. */
  readonly dynamoDbEndpoint: string | undefined;
  readonly inboxTableName: string;
  readonly appTableName: string;
  readonly bundleDirectory: string;
  /**
   * `sample`: the bundle `cdk deploy` ships (JSON); `sample-postgres`: the same consumer on Postgres;
   * `sample-redis`: the sample's side-effect consumer on Redis; `orders`: the harness's consumer
   * (orders-function-bundle.ts).
   */
  readonly bundle: 'sample' | 'sample-postgres' | 'sample-redis' | 'orders';
  readonly log: DemoLogOptions;
  readonly records: readonly ProducedRecord[];
}

export interface DemoSetup {
  /** Started here; undefined when an endpoint was given. */
  readonly dynamoDb: DynamoDbLocal | undefined;
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  readonly bundles: BuiltBundles;
  /** Produced to, and its source started: with Kafka, the consumer group has joined. */
  readonly log: DemoLog;
  /** How long each step took, in ms; the steps ran at the same time. */
  readonly timings: SetupTimings;
}

export interface SetupTimings {
  /** Starting DynamoDB Local (0 when an endpoint was given). */
  readonly dynamoDbMs: number;
  readonly tablesMs: number;
  readonly bundleMs: number;
  /** Starting the broker (or the in-memory log) and producing the workload. */
  readonly produceMs: number;
  /** Starting the record source: with Kafka, the consumer group's join, while the records are produced. */
  readonly joinMs: number;
}

/** Starts the three at once; when one fails, stops what the others started and throws the first failure. */
export async function startDemoSetup(options: DemoSetupOptions): Promise<DemoSetup> {
  const dynamoDbStart = timed(() =>
    options.dynamoDbEndpoint === undefined
      ? startDynamoDbLocal({ jvmOptions: QUICK_START_JVM_OPTIONS })
      : Promise.resolve(undefined),
  );
  const database = dynamoDbStart.then(async ({ value: dynamoDb }) => {
    const endpoint = dynamoDb?.endpoint ?? options.dynamoDbEndpoint ?? '';
    const client = localDynamoDbClient(endpoint);
    const tables = await timed(() =>
      Promise.all([
        createInboxTable(client, options.inboxTableName),
        createAppTable(client, options.appTableName),
      ]),
    );
    return { endpoint, client, tablesMs: tables.ms };
  });
  const bundle = timed(() =>
    options.bundle === 'orders'
      ? buildOrdersFunctionBundles(options.bundleDirectory)
      : options.bundle === 'sample-postgres'
        ? buildBundles(options.bundleDirectory, POSTGRES_BUNDLE)
        : options.bundle === 'sample-redis'
          ? buildBundles(options.bundleDirectory, REDIS_BUNDLE)
          : buildBundles(options.bundleDirectory),
  );
  const logStart = openDemoLog(options.log, options.records);
  try {
    const [started, { endpoint, client, tablesMs }, bundles, log] = await Promise.all([
      dynamoDbStart,
      database,
      bundle,
      logStart,
    ]);
    return {
      dynamoDb: started.value,
      endpoint,
      client,
      bundles: bundles.value,
      log,
      timings: {
        dynamoDbMs: started.value === undefined ? 0 : started.ms,
        tablesMs,
        bundleMs: bundles.ms,
        produceMs: log.produceMs,
        joinMs: log.joinMs,
      },
    };
  } catch (error) {
    // Every step settles first: a DynamoDB Local or a broker still starting is stopped too.
    const [dynamoDb, , , log] = await Promise.allSettled([dynamoDbStart, database, bundle, logStart]);
    await Promise.allSettled([
      dynamoDb.status === 'fulfilled' ? dynamoDb.value.value?.stop() : undefined,
      log.status === 'fulfilled' ? log.value.close() : undefined,
    ]);
    throw error;
  }
}

/** One line: how long each step took, and that they ran at the same time. */
export function describeSetup(timings: SetupTimings, totalMs: number, kafka: boolean): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const database =
    timings.dynamoDbMs > 0
      ? `DynamoDB Local ${s(timings.dynamoDbMs)} + tables ${s(timings.tablesMs)}`
      : `tables ${s(timings.tablesMs)}`;
  const log = kafka
    ? `Kafka broker + produce ${s(timings.produceMs)} | consumer group join ${s(timings.joinMs)} (the broker's initial rebalance delay is 3 s)`
    : `in-memory log ${s(timings.produceMs + timings.joinMs)}`;
  return `ready in ${s(totalMs)}; at the same time: ${database} | function bundle ${s(timings.bundleMs)} | ${log}`;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}
