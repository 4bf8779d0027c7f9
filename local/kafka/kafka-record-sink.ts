import type { IHeaders, Kafka, Message, PartitionerArgs, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import type { ProducedRecord, RecordHeader, RecordSink, TopicPartition } from '../esm/record-source.js';
import { LocalKafkaError } from './errors.js';

export interface KafkaRecordSinkOptions {
  /**
   * Records per produce request. One request per chunk keeps the order of `produce` within each partition.
   * @default 1000
   */
  readonly chunkSize?: number;
}

type ProducedCoordinates = TopicPartition & { readonly offset: number };

/**
 * The producer side of a Kafka topic (RecordSink): a plain kafkajs producer, neither idempotent nor
 * transactional (the mock cluster has neither), so a retried request may append a record twice, as a real
 * producer without idempotence can. Partitions follow Kafka's default partitioner (murmur2 of the key).
 */
export class KafkaRecordSink implements RecordSink {
  private readonly producer: Producer;
  private readonly chunkSize: number;
  /** The partition the partitioner chose for each message of the request being sent. */
  private readonly chosenPartitions = new WeakMap<Message, number>();
  private connecting: Promise<void> | undefined;

  constructor(kafka: Kafka, options: KafkaRecordSinkOptions = {}) {
    this.chunkSize = options.chunkSize ?? 1000;
    const defaultPartitioner = Partitioners.DefaultPartitioner();
    this.producer = kafka.producer({
      allowAutoTopicCreation: true,
      // Wrapping the default partitioner (rather than choosing partitions ourselves) keeps kafkajs's own
      // handling of keys and round robin, and tells us where each message went, to report its offset.
      createPartitioner: () => (args: PartitionerArgs) => {
        const partition = defaultPartitioner(args);
        this.chosenPartitions.set(args.message, partition);
        return partition;
      },
    });
  }

  async produce(records: readonly ProducedRecord[]): Promise<readonly ProducedCoordinates[]> {
    this.connecting ??= this.producer.connect();
    await this.connecting;
    const coordinates: ProducedCoordinates[] = [];
    for (let start = 0; start < records.length; start += this.chunkSize) {
      coordinates.push(...(await this.produceChunk(records.slice(start, start + this.chunkSize))));
    }
    return coordinates;
  }

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect();
  }

  private async produceChunk(records: readonly ProducedRecord[]): Promise<ProducedCoordinates[]> {
    const messagesByTopic = new Map<string, Message[]>();
    const messages = records.map((record) => {
      const message = toMessage(record);
      const topicMessages = messagesByTopic.get(record.topic) ?? [];
      topicMessages.push(message);
      messagesByTopic.set(record.topic, topicMessages);
      return message;
    });
    const results = await this.producer.sendBatch({
      topicMessages: [...messagesByTopic].map(([topic, topicMessages]) => ({
        topic,
        messages: topicMessages,
      })),
    });
    // Within one request a partition's messages form one record batch: consecutive offsets from its base.
    const nextOffsets = new Map<string, number>();
    for (const result of results) {
      if (result.baseOffset === undefined) {
        throw new LocalKafkaError(
          `the broker returned no base offset for ${result.topicName}-${result.partition}`,
        );
      }
      nextOffsets.set(`${result.topicName}-${result.partition}`, Number(result.baseOffset));
    }
    return records.map((record, index) => {
      const message = messages[index] as Message;
      const partition = this.chosenPartitions.get(message);
      const offset = partition === undefined ? undefined : nextOffsets.get(`${record.topic}-${partition}`);
      if (partition === undefined || offset === undefined) {
        throw new LocalKafkaError(`no offset came back for a record produced to ${record.topic}`);
      }
      nextOffsets.set(`${record.topic}-${partition}`, offset + 1);
      return { topic: record.topic, partition, offset };
    });
  }
}

function toMessage(record: ProducedRecord): Message {
  return {
    key: record.key,
    value: record.value,
    ...(record.partition === undefined ? {} : { partition: record.partition }),
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
    headers: toKafkaHeaders(record.headers ?? []),
  };
}

/** kafkajs takes headers as an object: a repeated name becomes an array of its values, in order. */
function toKafkaHeaders(headers: readonly RecordHeader[]): IHeaders {
  const valuesByName = new Map<string, Buffer[]>();
  for (const { key, value } of headers) valuesByName.set(key, [...(valuesByName.get(key) ?? []), value]);
  return Object.fromEntries(
    [...valuesByName].map(([key, values]) => [key, values.length === 1 ? values[0] : values]),
  );
}
