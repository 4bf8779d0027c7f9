/**
 * The pipeline's two topics, `orders` and `payments`, on one cluster: the Kafka broker (librdkafka's mock
 * cluster hosted by kcat) or, without kcat, the in-memory log behind its Kafka-protocol front
 * (local/kafka/memory-broker/), so the relay's kafkajs producer speaks the wire protocol either way.
 * The orders are produced before anything consumes; each consumer reads through its own group.
 */
import { InMemoryLog } from '../../esm/in-memory-log.js';
import type { ProducedRecord, RecordSource, SourceRecord, TopicPartition } from '../../esm/record-source.js';
import { MOCK_CLUSTER_PARTITIONS_PER_TOPIC, startKafkaMockCluster } from '../../kafka/broker.js';
import { createKafkaClient } from '../../kafka/kafka-client.js';
import { KafkaRecordSink } from '../../kafka/kafka-record-sink.js';
import { KafkaRecordSource } from '../../kafka/kafka-record-source.js';
import { startMemoryBroker } from '../../kafka/memory-broker/memory-broker.js';

export const PIPELINE_TOPICS = { orders: 'orders', payments: 'payments' } as const;
/** As many as the mock cluster gives every topic, so both kinds of log run the same shape. */
export const PIPELINE_PARTITIONS = MOCK_CLUSTER_PARTITIONS_PER_TOPIC;

export interface PipelineLog {
  readonly kind: 'kafka' | 'memory';
  /** What the relay produces to: `host:port,...`. */
  readonly bootstrapServers: string;
  /** Where each order landed, in produce order. */
  readonly produced: readonly (TopicPartition & { readonly offset: number })[];
  /** A consumer group's source on one topic (not started). */
  source(topic: string, groupId: string): RecordSource;
  /** Every record of a topic, partition by partition in offset order (a fresh group reading from the start). */
  readAll(topic: string): Promise<SourceRecord[]>;
  describe(): string;
  close(): Promise<void>;
}

export async function openPipelineLog(
  kind: 'kafka' | 'memory',
  orders: readonly ProducedRecord[],
): Promise<PipelineLog> {
  const sources: RecordSource[] = [];
  const track = (source: RecordSource) => {
    sources.push(source);
    return source;
  };
  const closeSources = () => Promise.allSettled(sources.map((source) => source.close()));
  if (kind === 'memory') {
    const log = new InMemoryLog({
      topics: {
        [PIPELINE_TOPICS.orders]: PIPELINE_PARTITIONS,
        [PIPELINE_TOPICS.payments]: PIPELINE_PARTITIONS,
      },
    });
    const produced = await log.produce(orders);
    const broker = await startMemoryBroker(log);
    return {
      kind,
      bootstrapServers: broker.bootstrapServers,
      produced,
      source: (topic, groupId) => track(log.consumer(groupId, [topic])),
      readAll: (topic) => readAll(track(log.consumer(`verify-${topic}`, [topic]))),
      describe: () => `the in-memory log behind a Kafka-protocol front (${broker.bootstrapServers})`,
      close: async () => {
        await closeSources();
        await broker.close();
      },
    };
  }
  const cluster = await startKafkaMockCluster();
  const kafka = createKafkaClient({ brokers: cluster.brokers });
  const sink = new KafkaRecordSink(kafka);
  try {
    const produced = await sink.produce(orders);
    const source = (topic: string, groupId: string) =>
      track(new KafkaRecordSource(kafka, { topics: [topic], groupId, brokers: cluster.brokers }));
    return {
      kind,
      bootstrapServers: cluster.bootstrapServers,
      produced,
      source,
      readAll: (topic) => readAll(source(topic, `verify-${topic}-${Date.now()}`)),
      describe: () => `the Kafka broker (${cluster.bootstrapServers})`,
      close: async () => {
        await closeSources();
        await sink.close();
        await cluster.stop();
      },
    };
  } catch (error) {
    await sink.close();
    await cluster.stop();
    throw error;
  }
}

/** Reads a source's partitions to their ends as they stand now. */
async function readAll(source: RecordSource): Promise<SourceRecord[]> {
  await source.start();
  const records: SourceRecord[] = [];
  const ends = new Map(
    (await source.progress()).map((progress) => [
      `${progress.topic}-${progress.partition}`,
      progress.endOffset,
    ]),
  );
  for (const topicPartition of source.assignments()) {
    const end = ends.get(`${topicPartition.topic}-${topicPartition.partition}`) ?? 0;
    let next = 0;
    while (next < end) {
      const batch = await source.poll(topicPartition, { maxRecords: 1_000, maxWaitMs: 1_000 });
      if (batch.length === 0) break;
      records.push(...batch);
      next = (batch.at(-1)?.offset ?? next) + 1;
    }
  }
  await source.close();
  return records;
}
