import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ProducedRecord, SourceRecord, TopicPartition } from '../../../local/esm/record-source.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { createKafkaClient } from '../../../local/kafka/kafka-client.js';
import { KafkaRecordSink } from '../../../local/kafka/kafka-record-sink.js';
import {
  KafkaRecordSource,
  type KafkaRecordSourceOptions,
} from '../../../local/kafka/kafka-record-source.js';
import { skipBrokerTests } from '../../support/broker.js';

let cluster: KafkaMockCluster;
let sink: KafkaRecordSink;
const sources: KafkaRecordSource[] = [];

beforeAll(async () => {
  if (skipBrokerTests) return;
  cluster = await startKafkaMockCluster({ brokers: 3 });
  sink = new KafkaRecordSink(createKafkaClient({ brokers: cluster.brokers }));
});

afterAll(async () => {
  await Promise.allSettled(sources.map((source) => source.close()));
  await sink?.close();
  await cluster?.stop();
});

function newTopic(): string {
  return `source-test-${randomUUID().slice(0, 8)}`;
}

async function startSource(
  topic: string,
  groupId: string,
  options: Partial<KafkaRecordSourceOptions> = {},
): Promise<KafkaRecordSource> {
  const source = new KafkaRecordSource(createKafkaClient({ brokers: cluster.brokers }), {
    topics: [topic],
    groupId,
    brokers: cluster.brokers,
    ...options,
  });
  sources.push(source);
  await source.start();
  return source;
}

function valueRecords(topic: string, partition: number, count: number, prefix = 'v'): ProducedRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    topic,
    partition,
    key: Buffer.from(`k${index}`),
    value: Buffer.from(`${prefix}${index}`),
  }));
}

/** Polls a partition until `count` records came back (or the test times out). */
async function pollRecords(
  source: KafkaRecordSource,
  topicPartition: TopicPartition,
  count: number,
  maxRecords = 1000,
): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  while (records.length < count) {
    records.push(...(await source.poll(topicPartition, { maxRecords, maxWaitMs: 200 })));
  }
  return records;
}

/** Polls every owned partition until `count` records came back in all. */
async function pollAll(source: KafkaRecordSource, count: number): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  while (records.length < count) {
    for (const topicPartition of source.assignments()) {
      records.push(...(await source.poll(topicPartition, { maxRecords: 1000, maxWaitMs: 50 })));
    }
  }
  return records;
}

const offsets = (records: readonly SourceRecord[]) => records.map((record) => record.offset);
const values = (records: readonly SourceRecord[]) => records.map((record) => record.value?.toString());

// Concurrent: each test has its own topic and group, and most of a test's time is the mock's 3 s group join.
describe.skipIf(skipBrokerTests).concurrent('KafkaRecordSource through the mock cluster', () => {
  it('returns each record at the offset the sink reported, with its key, value, headers and timestamp, when produced through the sink', async ({
    expect,
  }) => {
    const topic = newTopic();
    const produced: ProducedRecord[] = [
      {
        topic,
        key: Buffer.from('order-1'),
        value: Buffer.from('{"n":1}'),
        headers: [
          { key: 'event_id', value: Buffer.from('evt-1') },
          { key: 'trace', value: Buffer.from([0xff, 0x00]) },
          { key: 'trace', value: Buffer.from('second') },
        ],
        timestamp: 1_700_000_000_123,
      },
      {
        topic,
        key: null,
        value: Buffer.from('no key'),
        headers: [{ key: 'event_id', value: Buffer.from('evt-2') }],
      },
      { topic, key: Buffer.from('order-3'), value: null },
    ];
    const coordinates = await sink.produce(produced);
    const source = await startSource(topic, `group-${topic}`);

    expect(source.assignments()).toHaveLength(4);
    const received = await pollAll(source, produced.length);
    for (const [index, at] of coordinates.entries()) {
      const record = received.find(
        (polled) => polled.partition === at.partition && polled.offset === at.offset,
      );
      const sent = produced[index] as ProducedRecord;
      expect(record).toMatchObject({ topic, timestampType: 'CREATE_TIME' });
      expect(record?.key).toEqual(sent.key);
      expect(record?.value).toEqual(sent.value);
      expect(record?.headers).toEqual(sent.headers ?? []);
      if (sent.timestamp !== undefined) expect(record?.timestamp).toBe(sent.timestamp);
    }
  });

  it('redelivers from the sought offset, not from the committed one, when seeking back after polling ahead', async ({
    expect,
  }) => {
    const topic = newTopic();
    const partition0 = { topic, partition: 0 };
    await sink.produce(valueRecords(topic, 0, 30));
    const source = await startSource(topic, `group-${topic}`);

    expect(offsets(await pollRecords(source, partition0, 30))).toEqual([...Array(30).keys()]);
    await source.commit(partition0, 10);
    await source.seek(partition0, 12);
    const redelivered = await pollRecords(source, partition0, 18);

    expect(offsets(redelivered)).toEqual(Array.from({ length: 18 }, (_, index) => 12 + index));
    expect(values(redelivered)[0]).toBe('v12');
  });

  it('reports each partition committed at exactly the offset given and its log end when progress is asked', async ({
    expect,
  }) => {
    const topic = newTopic();
    await sink.produce([...valueRecords(topic, 0, 5), ...valueRecords(topic, 2, 3)]);
    const source = await startSource(topic, `group-${topic}`);
    await pollRecords(source, { topic, partition: 0 }, 5);

    await source.commit({ topic, partition: 0 }, 4);
    const progress = await source.progress();

    expect(progress).toEqual([
      { topic, partition: 0, committedOffset: 4, endOffset: 5 },
      { topic, partition: 1, committedOffset: 0, endOffset: 0 },
      { topic, partition: 2, committedOffset: 0, endOffset: 3 },
      { topic, partition: 3, committedOffset: 0, endOffset: 0 },
    ]);
  });

  it('resumes each partition at its committed offset when a new consumer of the group starts after the first closed', async ({
    expect,
  }) => {
    const topic = newTopic();
    const groupId = `group-${topic}`;
    await sink.produce([...valueRecords(topic, 0, 20), ...valueRecords(topic, 1, 20)]);
    const first = await startSource(topic, groupId);
    await pollRecords(first, { topic, partition: 0 }, 20);
    await pollRecords(first, { topic, partition: 1 }, 20);
    await first.commit({ topic, partition: 0 }, 7);
    await first.close();

    const second = await startSource(topic, groupId);

    expect(offsets(await pollRecords(second, { topic, partition: 0 }, 13))).toEqual(
      Array.from({ length: 13 }, (_, index) => 7 + index),
    );
    // Nothing committed on partition 1: it starts from the log start again.
    expect((await pollRecords(second, { topic, partition: 1 }, 1))[0]?.offset).toBe(0);
  });

  it('hands out every record once and in order when the buffer limit pauses fetching', async ({ expect }) => {
    const topic = newTopic();
    const partition3 = { topic, partition: 3 };
    // Ten produce requests: the mock answers a fetch with one record batch, so fetching takes many rounds.
    for (let round = 0; round < 10; round++) await sink.produce(valueRecords(topic, 3, 25, `r${round}-`));
    const source = await startSource(topic, `group-${topic}`, { maxBufferedRecordsPerPartition: 20 });

    const records = await pollRecords(source, partition3, 250, 7);

    expect(offsets(records)).toEqual([...Array(250).keys()]);
    expect(await source.poll(partition3, { maxRecords: 10, maxWaitMs: 300 })).toEqual([]);
  });
});
