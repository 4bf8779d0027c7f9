/**
 * Where the demo's records live: the in-memory partitioned log, or a Kafka broker (librdkafka's mock
 * cluster started here, or brokers given) read through a kafkajs consumer group. Either way the emulator
 * sees a RecordSource and the workload lands at known coordinates.
 */
import { InMemoryLog } from '../esm/in-memory-log.js';
import type { ProducedRecord, RecordSource, TopicPartition } from '../esm/record-source.js';
import { MOCK_CLUSTER_PARTITIONS_PER_TOPIC } from '../kafka/broker.js';
import { createKafkaWorkloadSource } from '../kafka/kafka-workload-source.js';

export type DemoSourceKind = 'memory' | 'kafka';

export interface DemoLogOptions {
  readonly kind: DemoSourceKind;
  readonly topic: string;
  readonly partitions: number;
  readonly consumerGroup: string;
  /** Kafka only: `host:port` each. @default a local mock cluster */
  readonly kafkaBrokers?: readonly string[];
}

export interface DemoLog {
  /** Not started: the mapping starts it. */
  readonly source: RecordSource;
  /** Where each produced record landed, in produce order. */
  readonly produced: readonly (TopicPartition & { readonly offset: number })[];
  /** Releases the source's connections and any broker started here. */
  close(): Promise<void>;
}

export async function openDemoLog(
  options: DemoLogOptions,
  records: readonly ProducedRecord[],
): Promise<DemoLog> {
  if (options.kind === 'memory') {
    const log = new InMemoryLog({ topics: { [options.topic]: options.partitions } });
    const produced = await log.produce(records);
    const source = log.consumer(options.consumerGroup);
    return { source, produced, close: () => source.close() };
  }
  if (options.kafkaBrokers === undefined && options.partitions !== MOCK_CLUSTER_PARTITIONS_PER_TOPIC) {
    throw new Error(
      `the local mock cluster makes every topic with ${MOCK_CLUSTER_PARTITIONS_PER_TOPIC} partitions: drop --partitions or set it to ${MOCK_CLUSTER_PARTITIONS_PER_TOPIC}`,
    );
  }
  const kafka = await createKafkaWorkloadSource({
    topic: options.topic,
    groupId: options.consumerGroup,
    records,
    ...(options.kafkaBrokers === undefined ? {} : { brokers: options.kafkaBrokers }),
  });
  return { source: kafka.source, produced: kafka.produced, close: () => kafka.stop() };
}
