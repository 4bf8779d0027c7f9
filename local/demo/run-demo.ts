/**
 * One demo run, end to end: DynamoDB Local, the function bundle and a workload on a partitioned log (the
 * Kafka broker or the in-memory log), started at once (demo-setup.ts), beside the store when it is another
 * (Postgres: demo-postgres.ts; Redis and the notification receiver: demo-redis.ts); the ESM emulator with
 * faults; then the verification. Used by `npm start` and the e2e test.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../../operator/cli/user-error.js';
import { sampleDashboard } from '../dashboard/dashboard-cache.js';
import { type LocalDashboard, writeLocalDashboard } from '../dashboard/local-dashboard.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../dynamodb-local/client.js';
import { assertJavaRuntime } from '../dynamodb-local/java-runtime.js';
import { answers } from '../dynamodb-local/server.js';
import { type EsmStats, EventSourceMapping } from '../esm/event-source-mapping.js';
import { FaultPlan } from '../esm/fault-plan.js';
import { MappingMetrics } from '../esm/mapping-metrics.js';
import { FolderDestination } from '../esm/on-failure-destination.js';
import { anyBrokerAccepts } from '../kafka/kafka-client.js';
import type { BuiltBundles } from '../lambda-runtime/build-bundles.js';
import { WorkerFunction } from '../lambda-runtime/worker-function.js';
import type { RunningPostgres } from '../postgres/running-postgres.js';
import { LOCAL_RUN_DIRECTORY } from '../project-paths.js';
import { LOCAL_TRACES_FILE_VARIABLE } from '../tracing/trace-file.js';
import { chooseDemoSource, type DemoLog } from './demo-log.js';
import type { DemoOptions } from './demo-options.js';
import { postgresFunctionEnvironment, readDemoPostgresState, startDemoPostgres } from './demo-postgres.js';
import {
  NOTIFICATION_CONSUMER_NAME,
  readDemoRedisState,
  redisFunctionEnvironment,
  startDemoRedis,
} from './demo-redis.js';
import { describeSetup, startDemoSetup } from './demo-setup.js';
import { readDynamoDbState } from './demo-state.js';
import { FunctionOutput } from './function-output.js';
import { withProducerTraces } from './producer-traces.js';
import { recordCoordinates, type Verification, verify } from './verify.js';
import { generateWorkload } from './workload.js';

/** The run's spans, in its work directory: the function's and the producer's, OTLP/JSON lines. */
export const TRACES_FILE = 'traces.jsonl';

export const DEMO_TOPIC = 'orders';
export const DEMO_CONSUMER_NAME = 'order-consumer';

export interface DemoIo {
  /** Progress lines while the run goes: each step as it starts. */
  readonly progress?: (line: string) => void;
  /** The running count, about once a second (a terminal shows it in place). @default progress */
  readonly status?: (line: string) => void;
  /** Where bundles, logs and the on-failure folder go. @default .local-run/ */
  readonly workDirectory?: string;
  /** Longest wait for the mapping to commit everything. @default 600000 */
  readonly catchUpTimeoutMs?: number;
}

export interface DemoResult {
  readonly options: DemoOptions;
  readonly sourceDescription: string;
  /** Why the run did not use the Kafka broker, and how to get it; undefined when it ran as asked. */
  readonly sourceNote: string | undefined;
  readonly partitions: number;
  readonly events: number;
  readonly producedRecords: number;
  readonly producerDuplicates: number;
  readonly poisonRecords: number;
  readonly esm: Readonly<EsmStats>;
  /** Sums of the function's EMF metrics (invocations that crashed never report theirs). */
  readonly functionMetrics: ReadonlyMap<string, number>;
  readonly coldStarts: number;
  readonly verification: Verification;
  /**
   * Setup in ms: the checks, then at once DynamoDB Local and the tables, the bundle, and the log (produced
   * to and, with Kafka, the consumer group joined).
   */
  readonly setupMs: number;
  /** From the mapping's start until every partition was committed, in ms. */
  readonly processingMs: number;
  readonly totalMs: number;
  readonly functionLogPath: string;
  readonly destinationPath: string;
  /** The function as this run ran it, its bundle and its environment: `npm start -- --keep` serves it on. */
  readonly function: {
    readonly bundles: BuiltBundles;
    readonly environment: Readonly<Record<string, string>>;
  };
  /** The sample stack's CloudWatch dashboard drawn from this run, and its alarms evaluated over it. */
  readonly dashboard: LocalDashboard;
}

export async function runDemo(options: DemoOptions, io: DemoIo = {}): Promise<DemoResult> {
  const started = Date.now();
  const progress = io.progress ?? (() => {});
  const status = io.status ?? progress;
  // Everything a person can fix is checked before anything starts.
  const sourceChoice = chooseDemoSource(options);
  if (options.dynamoDbEndpoint === undefined) assertJavaRuntime();
  if (options.dynamoDbEndpoint !== undefined && !(await answers(options.dynamoDbEndpoint))) {
    throw new UserError(
      `nothing answers at --dynamodb-endpoint ${options.dynamoDbEndpoint}: start DynamoDB Local there, or drop the flag to have one started`,
    );
  }
  if (options.kafkaBrokers !== undefined && !(await anyBrokerAccepts(options.kafkaBrokers))) {
    throw new UserError(
      `no broker accepts connections at --brokers ${options.kafkaBrokers.join(',')}: check the addresses, or drop the flag to use the local broker`,
    );
  }
  // The Redis store's consumer is the sample's side-effect one: the function and its logs are named so.
  const consumerName = options.store === 'redis' ? NOTIFICATION_CONSUMER_NAME : DEMO_CONSUMER_NAME;
  const workDirectory = io.workDirectory ?? LOCAL_RUN_DIRECTORY;
  const destinationPath = join(workDirectory, 'on-failure');
  const functionLogPath = join(workDirectory, 'logs', `${consumerName}.log`);
  await rm(destinationPath, { recursive: true, force: true });
  // redis-server starts in milliseconds: before the rest, so that where it is missing its one line (how to
  // get it) is all a run says. Stopped when setup fails, or in the end.
  const redis = options.store === 'redis' ? await startDemoRedis() : undefined;

  const run = randomUUID().slice(0, 8);
  const inboxTableName = `demo-inbox-${run}`;
  const appTableName = `demo-app-${run}`;
  // A fresh topic per run: an external broker may still hold an earlier run's.
  const topic = sourceChoice.kind === 'kafka' ? `${DEMO_TOPIC}-${run}` : DEMO_TOPIC;
  const workload = generateWorkload({
    topic,
    events: options.events,
    accounts: options.accounts,
    duplicateRate: options.duplicateRate,
    poisonRate: options.poisonRate,
    seed: options.seed,
    valueFormat: options.format,
  });
  const kafka = sourceChoice.kind === 'kafka';
  const database = options.dynamoDbEndpoint === undefined ? 'starting DynamoDB Local' : 'creating the tables';
  const logStep = !kafka
    ? 'filling the in-memory log'
    : options.kafkaBrokers === undefined
      ? 'starting the Kafka broker, producing and joining the consumer group'
      : `producing to the Kafka cluster at ${options.kafkaBrokers.join(',')} and joining the consumer group`;
  progress(
    `at the same time: ${database}, building the function bundle (the esbuild settings CDK deploys), ${logStep}...`,
  );
  const setupStarted = Date.now();
  // Synthesized (when its sources changed) while setup runs, on a thread of its own.
  const dashboardSynthesis = sampleDashboard(
    consumerName,
    join(workDirectory, 'dashboard', `${consumerName}.json`),
  );
  dashboardSynthesis.catch(() => undefined);
  // PGlite starts beside the rest (about 2 s from its template).
  const postgresStart = options.store === 'postgres' ? startDemoPostgres() : undefined;
  postgresStart?.catch(() => undefined);
  // The producer traces each event (producer-traces.ts); the function's spans go to the same file.
  const tracesPath = join(workDirectory, TRACES_FILE);
  rmSync(tracesPath, { force: true });
  const traced = withProducerTraces(workload.records);
  const setup = await startDemoSetup({
    dynamoDbEndpoint: options.dynamoDbEndpoint,
    inboxTableName,
    appTableName,
    bundleDirectory: join(workDirectory, 'bundles'),
    // Avro values go to the harness's consumer: the sample's bundle stays JSON-only (docs/design.md#value-formats).
    bundle:
      options.store !== 'dynamodb'
        ? (`sample-${options.store}` as const)
        : options.format === 'json'
          ? 'sample'
          : 'orders',
    log: {
      kind: sourceChoice.kind,
      topic,
      partitions: options.partitions,
      consumerGroup: consumerName,
      ...(options.kafkaBrokers === undefined ? {} : { kafkaBrokers: options.kafkaBrokers }),
    },
    records: traced.records,
  }).catch(async (error: unknown) => {
    await redis?.stop();
    throw error;
  });
  const { dynamoDb, endpoint, client, bundles } = setup;
  const output = new FunctionOutput(functionLogPath);
  let fn: WorkerFunction | undefined;
  let log: DemoLog | undefined = setup.log;
  let postgres: RunningPostgres | undefined;
  try {
    postgres = await postgresStart;
    const poison = log.produced.filter((_, index) => workload.records[index]?.poison !== undefined);
    const partitionCount = new Set(log.produced.map((p) => p.partition)).size;
    progress(
      `produced ${workload.records.length} records (${options.events} events, ${workload.producerDuplicates} producer duplicates, ` +
        `${workload.poisonCount} poison) to ${topic}, ${partitionCount} partitions`,
    );
    progress(describeSetup(setup.timings, Date.now() - setupStarted, kafka));
    traced.writeSpans(tracesPath, topic, setupStarted, setupStarted + setup.timings.produceMs);

    const environment = {
      ...functionEnvironment({ inboxTableName, appTableName, consumerName, logLevel: options.logLevel }),
      VALUE_FORMAT: options.format,
      // On Postgres and Redis the function knows no inbox table: their settings say where the inbox is.
      ...(postgres ? { INBOX_TABLE_NAME: '', ...postgresFunctionEnvironment(postgres) } : {}),
      ...(redis ? { INBOX_TABLE_NAME: '', ...redisFunctionEnvironment(redis) } : {}),
      [LOCAL_TRACES_FILE_VARIABLE]: tracesPath,
    };
    fn = new WorkerFunction({
      ...bundles,
      functionName: consumerName,
      dynamoDbEndpoint: endpoint,
      onOutput: (line) => output.accept(line),
      environment,
    });
    const { source } = log;
    const mappingMetrics = new MappingMetrics();
    const mapping = new EventSourceMapping({
      source: mappingMetrics.source(source),
      function: mappingMetrics.function(fn),
      destination: mappingMetrics.destination(
        new FolderDestination(destinationPath, '0b3f6a52-8d0c-4e59-a1a2-5c3d2e1f0a9b'),
      ),
      settings: {
        batchSize: options.batchSize,
        batchingWindowMs: options.batchingWindowMs,
        pollers: options.pollers ?? options.partitions,
        functionTimeoutMs: options.functionTimeoutMs,
        maxRetryAttempts: options.maxRetryAttempts,
        bisectOnFunctionError: options.bisect,
        functionName: consumerName,
      },
      faults: new FaultPlan({
        crashRate: options.crashRate,
        duplicateDeliveryRate: options.duplicateDeliveryRate,
        overlappingInvocationRate: options.overlapRate,
        seed: options.seed,
      }),
    });

    mappingMetrics.countFrom('FilteredOutEventCount', () => mapping.stats.filteredOutRecords);
    const setupMs = Date.now() - started;
    const processingStarted = Date.now();
    const total = workload.records.length;
    const ticker = setInterval(async () => {
      const committed = (await source.progress()).reduce((sum, p) => sum + p.committedOffset, 0);
      status(progressLine(Date.now() - processingStarted, committed, total, mapping.stats));
    }, 1_000);
    try {
      await mapping.start();
      await mapping.waitUntilCaughtUp(io.catchUpTimeoutMs ?? 600_000);
    } finally {
      clearInterval(ticker);
    }
    const processingMs = Date.now() - processingStarted;
    const finalProgress = await source.progress();
    await mapping.stop();
    status(progressLine(processingMs, total, total, mapping.stats));
    const coldStarts = fn.stats.coldStarts;
    // Nothing writes to DynamoDB any more: the check runs while the log and the environments shut down.
    const closing = Promise.all([log.close(), fn.close().then(() => output.close())]);
    log = undefined;
    fn = undefined;
    const [verification] = await Promise.all([
      verify({
        readState: () =>
          postgres
            ? readDemoPostgresState(postgres, consumerName)
            : redis
              ? readDemoRedisState(redis, consumerName, setup.log.produced.map(recordCoordinates))
              : readDynamoDbState({ client, appTableName, inboxTableName, consumerName }),
        expected: workload.expected,
        poison,
        progress: finalProgress,
        destinationRecords: mapping.stats.destinationRecords,
      }),
      closing,
    ]);
    const dashboard = await writeLocalDashboard(
      await dashboardSynthesis,
      {
        startMs: processingStarted,
        endMs: processingStarted + processingMs,
        functionLogPath,
        tracesPath,
        mapping: mappingMetrics,
        facts: [
          `${options.events} events (${total} records) on ${source.describe()}, ${finalProgress.length} partitions; ${mapping.stats.invocations} invocations, ${mapping.stats.crashes} crashes; verification ${verification.ok ? 'passed' : 'FAILED'}.`,
        ],
      },
      join(workDirectory, 'dashboard.html'),
    );
    return {
      options,
      sourceDescription: source.describe(),
      sourceNote: sourceChoice.note,
      partitions: finalProgress.length,
      events: options.events,
      producedRecords: total,
      producerDuplicates: workload.producerDuplicates,
      poisonRecords: workload.poisonCount,
      esm: { ...mapping.stats },
      functionMetrics: new Map(output.metrics),
      coldStarts,
      verification,
      setupMs,
      processingMs,
      totalMs: Date.now() - started,
      functionLogPath,
      destinationPath,
      function: { bundles, environment },
      dashboard,
    };
  } finally {
    await fn?.close();
    await log?.close();
    await output.close();
    await dynamoDb?.stop();
    await (postgres ?? (await postgresStart?.catch(() => undefined)))?.stop();
    await redis?.stop();
  }
}

/** The function's configuration, as the CDK stack sets it, plus what Lambda's runtime provides. */
function functionEnvironment(settings: {
  inboxTableName: string;
  appTableName: string;
  consumerName: string;
  logLevel: string;
}): Record<string, string> {
  return {
    INBOX_TABLE_NAME: settings.inboxTableName,
    APP_TABLE_NAME: settings.appTableName,
    CONSUMER_NAME: settings.consumerName,
    POWERTOOLS_LOG_LEVEL: settings.logLevel,
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: settings.consumerName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

function progressLine(
  elapsedMs: number,
  committed: number,
  total: number,
  stats: Readonly<EsmStats>,
): string {
  const percent = total === 0 ? 100 : Math.floor((committed / total) * 100);
  return [
    `${(elapsedMs / 1000).toFixed(1).padStart(6)}s`,
    `committed ${committed}/${total} (${percent}%)`,
    `invocations ${stats.invocations}`,
    `crashes ${stats.crashes}`,
    `redeliveries ${stats.redeliveredRecords}`,
  ].join('  ');
}
