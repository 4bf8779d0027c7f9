/**
 * `npm start -- --pipeline`: a chain of consumers, exactly-once end to end. Orders → the order consumer
 * (inbox + outbox: each order debits its account and emits a PaymentRequested) → the outbox relay (on the
 * outbox table's stream, through the local DynamoDB Streams mapping) → `payments` → the payment consumer
 * (inbox: captures each payment on its account's ledger). Crashes are injected in all three: the consumers'
 * environments die mid-batch, the relay's after producing and before its checkpoint. The run ends
 * `verified:` only when every payment was published at least once, in its account's commit order, and
 * applied exactly once, in that order, with nothing left in the outbox (pipeline-verify.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { RELAY_STREAM_FILTER } from '../../../lambdas/outbox-relay/relay-stream-filter.js';
import { localDynamoDbClient } from '../../dynamodb-local/client.js';
import { QUICK_START_JVM_OPTIONS, startDynamoDbLocal } from '../../dynamodb-local/server.js';
import { createAppTable, createInboxTable, createOutboxTable } from '../../dynamodb-local/tables.js';
import { EventSourceMapping } from '../../esm/event-source-mapping.js';
import { FaultPlan } from '../../esm/fault-plan.js';
import { InMemoryDestination } from '../../esm/on-failure-destination.js';
import { seededRandom } from '../../esm/seeded-random.js';
import { WorkerFunction } from '../../lambda-runtime/worker-function.js';
import { LOCAL_RUN_DIRECTORY } from '../../project-paths.js';
import { StreamEventSourceMapping } from '../../streams/stream-event-source-mapping.js';
import { readDynamoDbState } from '../demo-state.js';
import { verify } from '../verify.js';
import { generateWorkload } from '../workload.js';
import { expectedPayments } from './pipeline-expectations.js';
import { buildPipelineBundles, lambdaEnvironment, PIPELINE_FUNCTIONS } from './pipeline-functions.js';
import { openPipelineLog, PIPELINE_TOPICS } from './pipeline-log.js';
import { readPipelineState } from './pipeline-state.js';
import { type PipelineVerification, verifyPipeline } from './pipeline-verify.js';

/** Orders a pipeline run produces unless told otherwise: each goes through three functions. */
export const PIPELINE_EVENTS = 1_000;

/** Each function's invocations crash this often unless told otherwise: enough to crash each of the three. */
export const PIPELINE_CRASH_RATE = 0.2;

export interface PipelineOptions {
  readonly source: 'kafka' | 'memory';
  readonly events: number;
  readonly accounts: number;
  readonly seed: number;
  /** Per invocation, for each of the three functions. */
  readonly crashRate: number;
  readonly logLevel: string;
  /** A running DynamoDB Local to use (tests share one); undefined starts one. */
  readonly dynamoDbEndpoint?: string;
}

export interface PipelineResult {
  readonly sourceDescription: string;
  readonly verification: PipelineVerification;
  readonly invocations: Readonly<Record<'orders' | 'relay' | 'payments', number>>;
  readonly crashes: Readonly<Record<'orders' | 'relay' | 'payments', number>>;
  readonly orders: number;
  readonly totalMs: number;
}

export async function runPipeline(
  options: PipelineOptions,
  progress: (line: string) => void = () => {},
): Promise<PipelineResult> {
  const started = Date.now();
  const run = randomUUID().slice(0, 8);
  const tables = {
    ordersInbox: `pipeline-orders-inbox-${run}`,
    ordersApp: `pipeline-orders-app-${run}`,
    outbox: `pipeline-outbox-${run}`,
    paymentsInbox: `pipeline-payments-inbox-${run}`,
    ledger: `pipeline-ledger-${run}`,
  };
  const workload = generateWorkload({
    topic: PIPELINE_TOPICS.orders,
    events: options.events,
    accounts: options.accounts,
    duplicateRate: 0.05,
    poisonRate: 0.01,
    seed: options.seed,
  });
  progress('at the same time: starting DynamoDB Local, building the three bundles, opening the log...');
  const [dynamoDb, bundles, log] = await Promise.all([
    options.dynamoDbEndpoint === undefined
      ? startDynamoDbLocal({ jvmOptions: QUICK_START_JVM_OPTIONS })
      : { endpoint: options.dynamoDbEndpoint, stop: async () => {} },
    buildPipelineBundles(join(LOCAL_RUN_DIRECTORY, 'bundles')),
    openPipelineLog(options.source, workload.records),
  ]);
  const functions: WorkerFunction[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  try {
    const client = localDynamoDbClient(dynamoDb.endpoint);
    await Promise.all([
      createInboxTable(client, tables.ordersInbox),
      createAppTable(client, tables.ordersApp),
      createOutboxTable(client, tables.outbox),
      createInboxTable(client, tables.paymentsInbox),
      createAppTable(client, tables.ledger),
    ]);
    progress(`produced ${workload.records.length} orders to ${log.describe()}`);
    const worker = (name: keyof typeof PIPELINE_FUNCTIONS, environment: Record<string, string>) => {
      const fn = new WorkerFunction({
        ...bundles[name],
        functionName: PIPELINE_FUNCTIONS[name].name,
        dynamoDbEndpoint: dynamoDb.endpoint,
        environment: {
          ...lambdaEnvironment(PIPELINE_FUNCTIONS[name].name, options.logLevel),
          ...environment,
        },
      });
      functions.push(fn);
      return fn;
    };
    const orderConsumer = worker('orders', {
      INBOX_TABLE_NAME: tables.ordersInbox,
      APP_TABLE_NAME: tables.ordersApp,
      OUTBOX_TABLE_NAME: tables.outbox,
      PAYMENTS_TOPIC: PIPELINE_TOPICS.payments,
      CONSUMER_NAME: PIPELINE_FUNCTIONS.orders.name,
    });
    const relay = worker('relay', {
      OUTBOX_TABLE_NAME: tables.outbox,
      KAFKA_BOOTSTRAP_SERVERS: log.bootstrapServers,
      KAFKA_AUTH: 'none',
    });
    const paymentConsumer = worker('payments', {
      INBOX_TABLE_NAME: tables.paymentsInbox,
      LEDGER_TABLE_NAME: tables.ledger,
      CONSUMER_NAME: PIPELINE_FUNCTIONS.payments.name,
    });
    const faults = (salt: number) =>
      new FaultPlan({ crashRate: options.crashRate, seed: options.seed + salt });
    const orders = new EventSourceMapping({
      source: log.source(PIPELINE_TOPICS.orders, PIPELINE_FUNCTIONS.orders.name),
      function: orderConsumer,
      destination: new InMemoryDestination(),
      settings: { batchSize: 50, functionName: PIPELINE_FUNCTIONS.orders.name },
      faults: faults(1),
    });
    const relayRandom = seededRandom(options.seed + 2);
    let relayInvocations = 0;
    const relayMapping = new StreamEventSourceMapping({
      endpoint: dynamoDb.endpoint,
      tableName: tables.outbox,
      function: relay,
      settings: {
        batchSize: 50,
        filters: [RELAY_STREAM_FILTER],
        reportBatchItemFailures: true,
        bisectOnFunctionError: true,
        functionName: PIPELINE_FUNCTIONS.relay.name,
      },
      // The relay's environment dies after its produce, at one of its removals (applied, never answered):
      // the retried records publish the same events again, under the same ids.
      // Its first invocation always dies so, so every run shows the retry publishing again.
      faults: {
        crashAfterWrites: (records) =>
          relayInvocations++ === 0 || relayRandom() < options.crashRate
            ? Math.floor(relayRandom() * Math.max(1, records))
            : undefined,
      },
    });
    const payments = new EventSourceMapping({
      source: log.source(PIPELINE_TOPICS.payments, PIPELINE_FUNCTIONS.payments.name),
      function: paymentConsumer,
      destination: new InMemoryDestination(),
      settings: { batchSize: 50, functionName: PIPELINE_FUNCTIONS.payments.name },
      faults: faults(3),
    });
    stoppers.push(
      () => orders.stop(),
      () => relayMapping.stop(),
      () => payments.stop(),
    );
    progress(
      'running: orders → order-consumer (inbox + outbox) → outbox relay → payments → payment-consumer',
    );
    await Promise.all([orders.start(), relayMapping.start(), payments.start()]);
    await orders.waitUntilCaughtUp(600_000);
    progress(`orders committed: ${orders.stats.invocations} invocations, ${orders.stats.crashes} crashes`);
    await relayMapping.drained(600_000);
    progress(
      `outbox drained: ${relayMapping.stats.invocations} relay invocations, ${relayMapping.stats.crashes} crashes`,
    );
    await payments.waitUntilCaughtUp(600_000);
    progress(
      `payments committed: ${payments.stats.invocations} invocations, ${payments.stats.crashes} crashes`,
    );
    const ordersProgress = await log
      .source(PIPELINE_TOPICS.orders, PIPELINE_FUNCTIONS.orders.name)
      .progress();
    await Promise.all(stoppers.map((stop) => stop()));
    stoppers.length = 0;

    const poison = log.produced.filter((_, index) => workload.records[index]?.poison !== undefined);
    const [orderVerification, state, published] = await Promise.all([
      verify({
        readState: () =>
          readDynamoDbState({
            client,
            appTableName: tables.ordersApp,
            inboxTableName: tables.ordersInbox,
            consumerName: PIPELINE_FUNCTIONS.orders.name,
          }),
        expected: workload.expected,
        poison,
        progress: ordersProgress,
        destinationRecords: orders.stats.destinationRecords,
      }),
      readPipelineState(client, { ledger: tables.ledger, outbox: tables.outbox }),
      log.readAll(PIPELINE_TOPICS.payments),
    ]);
    const stranded = [
      ...(relayMapping.stats.destinationBatches > 0
        ? [`${relayMapping.stats.destinationBatches} relay batches went to the on-failure destination`]
        : []),
      ...(payments.stats.destinationRecords > 0
        ? [`${payments.stats.destinationRecords} payments went to the on-failure destination`]
        : []),
    ];
    const verification = verifyPipeline(expectedPayments(workload.records, PIPELINE_FUNCTIONS.orders.name), {
      ledger: state.ledger,
      publishedByKey: publishedByKey(published),
      outboxQueueRows: state.outboxQueueRows,
      outboxQuarantineRows: state.outboxQuarantineRows,
      otherProblems: [
        ...orderVerification.problems.map((line: string) => `order consumer: ${line}`),
        ...stranded,
      ],
    });
    return {
      sourceDescription: log.describe(),
      verification,
      invocations: {
        orders: orders.stats.invocations,
        relay: relayMapping.stats.invocations,
        payments: payments.stats.invocations,
      },
      crashes: {
        orders: orders.stats.crashes,
        relay: relayMapping.stats.crashes,
        payments: payments.stats.crashes,
      },
      orders: workload.records.length,
      totalMs: Date.now() - started,
    };
  } finally {
    await Promise.allSettled(stoppers.map((stop) => stop()));
    await Promise.allSettled(functions.map((fn) => fn.close()));
    await log.close();
    await dynamoDb.stop();
  }
}

/** The payments topic's `event_id` headers per Kafka key (the account), in log order. */
function publishedByKey(
  records: readonly { key: Buffer | null; headers: readonly { key: string; value: Buffer }[] }[],
): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const record of records) {
    const key = record.key?.toString('utf8') ?? '';
    const id = record.headers.find((header) => header.key === 'event_id')?.value.toString('utf8') ?? '';
    byKey.set(key, [...(byKey.get(key) ?? []), id]);
  }
  return byKey;
}
