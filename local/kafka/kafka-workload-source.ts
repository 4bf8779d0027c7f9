import type { logLevel } from 'kafkajs';
import type { ProducedRecord, TopicPartition } from '../esm/record-source.js';
import { type KafkaMockCluster, startKafkaMockCluster } from './broker.js';
import { createKafkaClient } from './kafka-client.js';
import { KafkaRecordSink } from './kafka-record-sink.js';
import { KafkaRecordSource } from './kafka-record-source.js';

export interface KafkaWorkloadSourceOptions {
  /** An existing cluster, `host:port` each. @default a local mock cluster, started here and stopped by `stop` */
  readonly brokers?: readonly string[];
  readonly topic: string;
  /** @default `msk-inbox-<topic>` */
  readonly groupId?: string;
  /** Produced, in order, before this resolves; more can be produced later through `sink`. @default none */
  readonly records?: readonly ProducedRecord[];
  /** Brokers of the local mock cluster. @default 3 */
  readonly mockBrokers?: number;
  /** See KafkaRecordSourceOptions.sessionTimeoutMs. @default 6000 */
  readonly sessionTimeoutMs?: number;
  /** @default logLevel.NOTHING */
  readonly logLevel?: logLevel;
}

export interface KafkaWorkloadSource {
  /** Not started: the emulator calls `start()`. */
  readonly source: KafkaRecordSource;
  readonly sink: KafkaRecordSink;
  /** Where each of `records` landed, in the same order. */
  readonly produced: readonly (TopicPartition & { readonly offset: number })[];
  readonly bootstrapServers: string;
  /** For the demo's summary, e.g. `kafka (127.0.0.1:39123)`. */
  readonly description: string;
  /** The local cluster when this started one; undefined with `brokers`. */
  readonly cluster: KafkaMockCluster | undefined;
  /** Closes the source and the sink, then stops the local cluster if this started it. */
  stop(): Promise<void>;
}

/**
 * Everything the demo needs to run through the Kafka protocol: a broker (the local mock cluster unless
 * `brokers` names one), the workload written to `topic` by a producer, and a consumer-group record source
 * for the ESM emulator.
 */
export async function createKafkaWorkloadSource(
  options: KafkaWorkloadSourceOptions,
): Promise<KafkaWorkloadSource> {
  const cluster = options.brokers
    ? undefined
    : await startKafkaMockCluster(options.mockBrokers === undefined ? {} : { brokers: options.mockBrokers });
  const brokers = options.brokers ?? cluster?.brokers ?? [];
  const kafka = createKafkaClient({
    brokers,
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
  });
  const sink = new KafkaRecordSink(kafka);
  const source = new KafkaRecordSource(kafka, {
    topics: [options.topic],
    groupId: options.groupId ?? `msk-inbox-${options.topic}`,
    brokers,
    ...(options.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: options.sessionTimeoutMs }),
  });
  const stop = async () => {
    await Promise.allSettled([source.close(), sink.close()]);
    await cluster?.stop();
  };
  let produced: KafkaWorkloadSource['produced'] = [];
  try {
    if (options.records && options.records.length > 0) produced = await sink.produce(options.records);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    source,
    sink,
    produced,
    bootstrapServers: brokers.join(','),
    description: source.describe(),
    cluster,
    stop,
  };
}
