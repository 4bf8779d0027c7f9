import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readDynamoDbState } from '../../../local/demo/demo-state.js';
import { verify } from '../../../local/demo/verify.js';
import { generateWorkload, type Workload } from '../../../local/demo/workload.js';
import type { PartitionProgress, TopicPartition } from '../../../local/esm/record-source.js';
import { topicPartitionKey } from '../../../local/esm/record-source.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { createKafkaClient } from '../../../local/kafka/kafka-client.js';
import { KafkaRecordSink } from '../../../local/kafka/kafka-record-sink.js';
import { skipBrokerTests } from '../../support/broker.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import type { EmulatorLine, EmulatorRun } from './fixtures/emulator-process.js';
import { CONSUMER_NAME } from './fixtures/order-consumer-function.js';

const children: ChildProcess[] = [];
let cluster: KafkaMockCluster;
let admin: Admin;

beforeAll(async () => {
  if (skipBrokerTests) return;
  cluster = await startKafkaMockCluster({ brokers: 3 });
  admin = createKafkaClient({ brokers: cluster.brokers }).admin();
  await admin.connect();
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await admin?.disconnect();
  await cluster?.stop();
});

/** Starts the emulator process; `lines` yields its JSON lines as they come. */
function startEmulator(run: EmulatorRun): {
  child: ChildProcess;
  next: (event: EmulatorLine['event']) => Promise<EmulatorLine>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/kafka/fixtures/emulator-process.ts'], {
    env: { ...process.env, EMULATOR_RUN: JSON.stringify(run) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const seen: EmulatorLine[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    seen.push(JSON.parse(line) as EmulatorLine);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = once(child, 'exit');
  const next = async (event: EmulatorLine['event']): Promise<EmulatorLine> => {
    for (;;) {
      const found = seen.find((line) => line.event === event);
      if (found) return found;
      const arrived = new Promise<void>((resolve) => waiters.push(resolve));
      const ended = await Promise.race([arrived.then(() => false), exited.then(() => true)]);
      if (ended && !seen.some((line) => line.event === event)) {
        throw new Error(
          `the emulator exited (${child.exitCode ?? child.signalCode}) before printing ${event}`,
        );
      }
    }
  };
  return { child, next };
}

async function groupProgress(topic: string, groupId: string): Promise<PartitionProgress[]> {
  const [logOffsets, [groupOffsets]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  return logOffsets
    .map(({ partition, high }) => {
      const committed = Number(groupOffsets?.partitions.find((p) => p.partition === partition)?.offset ?? -1);
      return { topic, partition, committedOffset: Math.max(0, committed), endOffset: Number(high) };
    })
    .sort((a, b) => a.partition - b.partition);
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sumCommitted = (progress: readonly PartitionProgress[]) =>
  progress.reduce((sum, partition) => sum + partition.committedOffset, 0);

describe.skipIf(skipBrokerTests)('the emulator process over Kafka, killed with SIGKILL and restarted', () => {
  let tables: TestTables;
  let workload: Workload;
  let poison: (TopicPartition & { offset: number })[];
  let run: EmulatorRun;
  let committedAtKill: PartitionProgress[];
  let restarted: Extract<EmulatorLine, { event: 'caught-up' }>;

  beforeAll(async () => {
    tables = await createTestTables();
    const topic = `orders-${randomUUID().slice(0, 8)}`;
    workload = generateWorkload({
      topic,
      events: 200,
      accounts: 10,
      duplicateRate: 0.2,
      poisonRate: 0.05,
      seed: 21,
    });
    const sink = new KafkaRecordSink(createKafkaClient({ brokers: cluster.brokers }));
    const written = await sink.produce(workload.records);
    await sink.close();
    poison = written.filter((_, index) => workload.records[index]?.poison !== undefined);
    run = {
      brokers: cluster.brokers,
      topic,
      groupId: `group-${topic}`,
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      inboxTableName: tables.inboxTableName,
      appTableName: tables.appTableName,
    };

    // First life: every DynamoDB call after the 80th hangs, so each poller stops mid-batch; then SIGKILL.
    const first = startEmulator({ ...run, stallAfterDynamoDbCalls: 80 });
    await first.next('stalled');
    // The commit of the last invocation that finished may still be on its way when the stall is printed.
    await waitUntil(async () => sumCommitted(await groupProgress(topic, run.groupId)) > 0, 10_000);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    committedAtKill = await groupProgress(topic, run.groupId);

    const second = startEmulator(run);
    restarted = (await second.next('caught-up')) as typeof restarted;
    await once(second.child, 'exit');
  }, 90_000);

  it('was killed part way: some records committed, others not', () => {
    const total = workload.records.length;
    expect(sumCommitted(committedAtKill)).toBeGreaterThan(0);
    expect(sumCommitted(committedAtKill)).toBeLessThan(total);
  });

  it('resumes every unfinished partition at its committed offset when restarted', () => {
    for (const partition of committedAtKill.filter((p) => p.committedOffset < p.endOffset)) {
      expect(restarted.firstDelivered[topicPartitionKey(partition)]).toBe(partition.committedOffset);
    }
    expect(restarted.deliveredRecords).toBeLessThan(workload.records.length);
  });

  it('applies each unique valid event exactly once and commits every partition when the restarted run ends', async () => {
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
      progress: await groupProgress(run.topic, run.groupId),
      destinationRecords: 0,
    });

    expect(verification.problems).toEqual([]);
  });
});
