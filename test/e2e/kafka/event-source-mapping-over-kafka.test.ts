import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { readDynamoDbState } from '../../../local/demo/demo-state.js';
import { verify } from '../../../local/demo/verify.js';
import { generateWorkload, type Workload } from '../../../local/demo/workload.js';
import type { EsmSettings } from '../../../local/esm/esm-settings.js';
import { EventSourceMapping } from '../../../local/esm/event-source-mapping.js';
import { FaultPlan } from '../../../local/esm/fault-plan.js';
import {
  InProcessFunction,
  type KafkaHandler,
  type LambdaFunction,
} from '../../../local/esm/lambda-function.js';
import type { MskEventRecord } from '../../../local/esm/msk-event.js';
import { InMemoryDestination } from '../../../local/esm/on-failure-destination.js';
import type { PartitionProgress } from '../../../local/esm/record-source.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { createKafkaClient } from '../../../local/kafka/kafka-client.js';
import { KafkaRecordSink } from '../../../local/kafka/kafka-record-sink.js';
import { KafkaRecordSource } from '../../../local/kafka/kafka-record-source.js';
import { skipBrokerTests } from '../../support/broker.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { CONSUMER_NAME, orderConsumerFunction } from './fixtures/order-consumer-function.js';

// Powertools Metrics writes EMF to stdout on every invocation; the counts are not what these tests read.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

let cluster: KafkaMockCluster;
let sink: KafkaRecordSink;
let admin: Admin;
const mappings: EventSourceMapping[] = [];

beforeAll(async () => {
  if (skipBrokerTests) return;
  cluster = await startKafkaMockCluster({ brokers: 3 });
  const kafka = createKafkaClient({ brokers: cluster.brokers });
  sink = new KafkaRecordSink(kafka);
  admin = kafka.admin();
  await admin.connect();
});

afterAll(async () => {
  await Promise.allSettled(mappings.map((mapping) => mapping.stop()));
  await admin?.disconnect();
  await sink?.close();
  await cluster?.stop();
});

interface MappingRun {
  readonly mapping: EventSourceMapping;
  readonly destination: InMemoryDestination;
  /** Progress as the broker reports it once every partition is committed to its end. */
  readonly progress: readonly PartitionProgress[];
}

/** Runs the emulator over the topic through a fresh consumer group until everything is committed. */
async function runMapping(
  topic: string,
  fn: LambdaFunction,
  settings: EsmSettings = {},
  faults?: FaultPlan,
): Promise<MappingRun> {
  const source = new KafkaRecordSource(createKafkaClient({ brokers: cluster.brokers }), {
    topics: [topic],
    groupId: `group-${topic}`,
    brokers: cluster.brokers,
  });
  const destination = new InMemoryDestination();
  const mapping = new EventSourceMapping({
    source,
    function: fn,
    destination,
    settings: { batchSize: 20, batchingWindowMs: 20, functionName: CONSUMER_NAME, ...settings },
    ...(faults ? { faults } : {}),
  });
  mappings.push(mapping);
  await mapping.start();
  await mapping.waitUntilCaughtUp(30_000);
  const progress = await source.progress();
  await mapping.stop();
  return { mapping, destination, progress };
}

async function produceWorkload(workload: Workload) {
  const written = await sink.produce(workload.records);
  return written.filter((_, index) => workload.records[index]?.poison !== undefined);
}

function newTopic(): string {
  return `orders-${randomUUID().slice(0, 8)}`;
}

// Concurrent: each test has its own topic, group and tables; a group join alone takes the mock 3 s.
describe.skipIf(skipBrokerTests).concurrent('the ESM emulator over the Kafka record source', () => {
  let tables: TestTables;

  beforeAll(async () => {
    tables = await createTestTables();
  });

  it('applies each unique valid event exactly once when functions crash and the producer and the ESM duplicate', async ({
    expect,
  }) => {
    const topic = newTopic();
    const workload = generateWorkload({
      topic,
      events: 200,
      accounts: 15,
      duplicateRate: 0.2,
      poisonRate: 0.05,
      seed: 11,
    });
    const poison = await produceWorkload(workload);

    const run = await runMapping(
      topic,
      orderConsumerFunction({ dynamoDb: tables.client, ...tables }),
      { pollers: 4 },
      new FaultPlan({ crashRate: 0.3, duplicateDeliveryRate: 0.2, seed: 5 }),
    );
    const verification = await verify({
      readState: () =>
        readDynamoDbState({
          client: tables.client,
          appTableName: tables.appTableName,
          inboxTableName: tables.inboxTableName,
          consumerName: CONSUMER_NAME,
        }),
      expected: workload.expected,
      poison,
      progress: run.progress,
      destinationRecords: run.mapping.stats.destinationRecords,
    });

    expect(verification.problems).toEqual([]);
    expect(workload.producerDuplicates).toBeGreaterThan(0);
    expect(run.mapping.stats.crashes).toBeGreaterThan(0);
    expect(run.mapping.stats.duplicateDeliveries).toBeGreaterThan(0);
    expect(run.mapping.stats.redeliveredRecords).toBeGreaterThan(0);
  });

  it('commits past a poison record and applies the records after it when they share its partition', async ({
    expect,
  }) => {
    const topic = newTopic();
    const ownTables = await createTestTables();
    const generated = generateWorkload({
      topic,
      events: 60,
      accounts: 5,
      duplicateRate: 0,
      poisonRate: 0.2,
      seed: 3,
    });
    // Everything on partition 0: a poison record that blocked its partition would block the whole run.
    const workload = {
      ...generated,
      records: generated.records.map((record) => ({ ...record, partition: 0 })),
    };
    const poison = await produceWorkload(workload);
    const lastPoisonOffset = Math.max(...poison.map((record) => record.offset));

    const run = await runMapping(topic, orderConsumerFunction({ dynamoDb: ownTables.client, ...ownTables }));
    const verification = await verify({
      readState: () =>
        readDynamoDbState({
          client: ownTables.client,
          appTableName: ownTables.appTableName,
          inboxTableName: ownTables.inboxTableName,
          consumerName: CONSUMER_NAME,
        }),
      expected: workload.expected,
      poison,
      progress: run.progress,
      destinationRecords: run.mapping.stats.destinationRecords,
    });

    expect(poison.length).toBeGreaterThan(1);
    expect(lastPoisonOffset).toBeLessThan(workload.records.length - 1);
    expect(verification.problems).toEqual([]);
    expect(verification.quarantineRows).toBe(poison.length);
    expect(run.progress.find((p) => p.partition === 0)).toMatchObject({
      committedOffset: workload.records.length,
      endOffset: workload.records.length,
    });
    expect(run.mapping.stats.redeliveredRecords).toBe(0);
  });

  it('redelivers only from the reported offset of the failed partition and commits the others when a response reports one record', async ({
    expect,
  }) => {
    const topic = newTopic();
    for (const partition of [0, 1, 2, 3]) {
      await sink.produce(
        Array.from({ length: 10 }, (_, index) => ({
          topic,
          partition,
          key: Buffer.from(`k${index}`),
          value: Buffer.from(`p${partition}-${index}`),
        })),
      );
    }
    const delivered = new Map<number, number[]>();
    let committedWhenRedelivered: Map<number, number> | undefined;
    let reported = false;
    const handler: KafkaHandler = async (event) => {
      const records = Object.values(event.records).flat() as MskEventRecord[];
      for (const record of records)
        delivered.set(record.partition, [...(delivered.get(record.partition) ?? []), record.offset]);
      const failed = records.find((record) => record.partition === 2 && record.offset === 5);
      if (failed && reported && !committedWhenRedelivered)
        committedWhenRedelivered = await committedOffsets(topic);
      if (!failed || reported) return { batchItemFailures: [] };
      reported = true;
      return { batchItemFailures: [{ itemIdentifier: { partition: `${topic}-2`, offset: 5 } }] };
    };

    // One poller and a batch that holds every partition, so the failure shares its batch with the others.
    const run = await runMapping(topic, new InProcessFunction(handler), {
      pollers: 1,
      batchSize: 100,
      batchingWindowMs: 500,
    });

    const once = [...Array(10).keys()];
    expect(delivered.get(2)).toEqual([...once, 5, 6, 7, 8, 9]);
    for (const partition of [0, 1, 3]) expect(delivered.get(partition)).toEqual(once);
    expect(committedWhenRedelivered?.get(2)).toBe(5);
    for (const partition of [0, 1, 3]) expect(committedWhenRedelivered?.get(partition)).toBe(10);
    expect(run.progress.map((p) => p.committedOffset)).toEqual([10, 10, 10, 10]);
    expect(run.mapping.stats.partialFailures).toBe(1);
  });
});

/** The group's committed offsets as the broker holds them. */
async function committedOffsets(topic: string): Promise<Map<number, number>> {
  const [offsets] = await admin.fetchOffsets({ groupId: `group-${topic}`, topics: [topic] });
  return new Map((offsets?.partitions ?? []).map(({ partition, offset }) => [partition, Number(offset)]));
}
