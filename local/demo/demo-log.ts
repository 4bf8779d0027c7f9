/**
 * Where the demo's records live: the in-memory partitioned log, or a Kafka broker (librdkafka's mock
 * cluster started here, or brokers given) read through a kafkajs consumer group. Either way the emulator
 * sees a RecordSource and the workload lands at known coordinates.
 */
import { UserError } from '../../operator/cli/user-error.js';
import { InMemoryLog } from '../esm/in-memory-log.js';
import type { ProducedRecord, RecordSource, TopicPartition } from '../esm/record-source.js';
import { isKcatInstalled, MOCK_CLUSTER_PARTITIONS_PER_TOPIC } from '../kafka/broker.js';
import { INSTALL_KCAT, KcatNotInstalledError } from '../kafka/errors.js';
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
  /** Started: with Kafka, the consumer group has joined. The mapping's own `start()` finds it so. */
  readonly source: RecordSource;
  /** Where each produced record landed, in produce order. */
  readonly produced: readonly (TopicPartition & { readonly offset: number })[];
  /** Starting the broker (or the in-memory log) and producing, in ms. */
  readonly produceMs: number;
  /** Starting the source, in ms: with Kafka, the group join, which runs while the records are produced. */
  readonly joinMs: number;
  /** Releases the source's connections and any broker started here. */
  close(): Promise<void>;
}

/**
 * The log with the workload in it and its source started. With Kafka the consumer group joins while the
 * records are produced, as a consumer that is already running would: the broker holds a new group's first
 * join for 3 s (group.initial.rebalance.delay.ms), which then passes alongside the rest of the setup.
 */
export async function openDemoLog(
  options: DemoLogOptions,
  records: readonly ProducedRecord[],
): Promise<DemoLog> {
  const started = Date.now();
  if (options.kind === 'memory') {
    const log = new InMemoryLog({ topics: { [options.topic]: options.partitions } });
    const produced = await log.produce(records);
    const produceMs = Date.now() - started;
    const source = log.consumer(options.consumerGroup);
    await source.start();
    const joinMs = Date.now() - started - produceMs;
    return { source, produced, produceMs, joinMs, close: () => source.close() };
  }
  const kafka = await createKafkaWorkloadSource({
    topic: options.topic,
    groupId: options.consumerGroup,
    ...(options.kafkaBrokers === undefined ? {} : { brokers: options.kafkaBrokers }),
  });
  try {
    const joining = Date.now();
    const [[produced, produceMs], joinMs] = await Promise.all([
      kafka.sink.produce(records).then((coordinates) => [coordinates, Date.now() - started] as const),
      kafka.source.start().then(() => Date.now() - joining),
    ]);
    return { source: kafka.source, produced, produceMs, joinMs, close: () => kafka.stop() };
  } catch (error) {
    await kafka.stop();
    throw error;
  }
}

export interface DemoSourceChoice {
  readonly kind: DemoSourceKind;
  /** Why the demo runs without the broker, and how to get it; undefined when it runs as asked. */
  readonly note?: string;
}

/**
 * The source a run uses: the one asked for, else the Kafka broker wherever this machine can host one
 * (kcat installed, or --brokers given), else the in-memory log, which the summary then says.
 */
export function chooseDemoSource(
  options: {
    readonly source: DemoSourceKind | undefined;
    readonly kafkaBrokers: readonly string[] | undefined;
    readonly partitions: number;
  },
  kcatInstalled: boolean = isKcatInstalled(),
): DemoSourceChoice {
  const external = options.kafkaBrokers !== undefined;
  if (options.source === 'memory') return { kind: 'memory' };
  if (options.source === 'kafka' && !external && !kcatInstalled) throw new KcatNotInstalledError();
  if (options.source === 'kafka' || external || kcatInstalled) {
    if (!external && options.partitions !== MOCK_CLUSTER_PARTITIONS_PER_TOPIC) {
      throw new UserError(
        `the local Kafka broker makes every topic with ${MOCK_CLUSTER_PARTITIONS_PER_TOPIC} partitions: drop --partitions, set it to ${MOCK_CLUSTER_PARTITIONS_PER_TOPIC}, or add --source memory`,
      );
    }
    return { kind: 'kafka' };
  }
  return {
    kind: 'memory',
    note: `kcat not found, so the in-memory log stands in for the Kafka broker; for the broker: ${INSTALL_KCAT}`,
  };
}
