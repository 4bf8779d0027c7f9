/**
 * A partitioned, append-only log held in memory: the record source for tests and the default demo.
 * It keeps committed offsets per consumer group, so a new consumer of the same group resumes where the
 * last one committed, as a restarted Kafka consumer does.
 */
import { partitionForKey } from './kafka-partitioner.js';
import {
  type PartitionProgress,
  type PollOptions,
  type ProducedRecord,
  type RecordSink,
  type RecordSource,
  type SourceRecord,
  type TopicPartition,
  topicPartitionKey,
} from './record-source.js';

export interface InMemoryLogOptions {
  /** Topic name to partition count, e.g. `{ orders: 4 }`. */
  readonly topics: Readonly<Record<string, number>>;
  /** @default Date.now */
  readonly now?: () => number;
}

export class InMemoryLog implements RecordSink {
  readonly #partitions = new Map<string, SourceRecord[]>();
  readonly #partitionCounts: Map<string, number>;
  readonly #committed = new Map<string, Map<string, number>>();
  readonly #roundRobin = new Map<string, number>();
  readonly #appendListeners = new Set<() => void>();
  readonly #now: () => number;

  constructor(options: InMemoryLogOptions) {
    this.#now = options.now ?? Date.now;
    this.#partitionCounts = new Map();
    for (const [topic, count] of Object.entries(options.topics)) this.createTopic(topic, count);
  }

  /**
   * Adds a topic with `partitions` empty partitions, as a broker's topic auto-creation does
   * (local/kafka/memory-broker/). Consumers made before see none of it.
   */
  createTopic(topic: string, partitions: number): void {
    if (this.#partitionCounts.has(topic)) throw new Error(`topic ${topic} exists`);
    if (!Number.isInteger(partitions) || partitions < 1)
      throw new Error(`topic ${topic}: partition count must be >= 1`);
    this.#partitionCounts.set(topic, partitions);
    for (let partition = 0; partition < partitions; partition++) {
      this.#partitions.set(topicPartitionKey({ topic, partition }), []);
    }
  }

  /** The topic's partition count; undefined when the log has no such topic. */
  partitionCount(topic: string): number | undefined {
    return this.#partitionCounts.get(topic);
  }

  /** Every topic's name, in creation order. */
  topicNames(): string[] {
    return [...this.#partitionCounts.keys()];
  }

  async produce(records: readonly ProducedRecord[]): Promise<(TopicPartition & { offset: number })[]> {
    const written = records.map((record) => this.#append(record));
    for (const listener of [...this.#appendListeners]) listener();
    return written;
  }

  async close(): Promise<void> {}

  /** A consumer of every partition of `topics`, committing under `groupId`. */
  consumer(groupId: string, topics: readonly string[] = [...this.#partitionCounts.keys()]): RecordSource {
    return new InMemoryConsumer(this, groupId, this.topicPartitions(topics));
  }

  topicPartitions(topics: readonly string[]): TopicPartition[] {
    return topics.flatMap((topic) => {
      const count = this.#partitionCounts.get(topic);
      if (count === undefined) throw new Error(`unknown topic ${topic}`);
      return Array.from({ length: count }, (_, partition) => ({ topic, partition }));
    });
  }

  /** Records of a partition from `offset` on, at most `maxRecords`. */
  read(topicPartition: TopicPartition, offset: number, maxRecords: number): SourceRecord[] {
    return this.#log(topicPartition).slice(offset, offset + maxRecords);
  }

  endOffset(topicPartition: TopicPartition): number {
    return this.#log(topicPartition).length;
  }

  committedOffset(groupId: string, topicPartition: TopicPartition): number | undefined {
    return this.#committed.get(groupId)?.get(topicPartitionKey(topicPartition));
  }

  commit(groupId: string, topicPartition: TopicPartition, nextOffset: number): void {
    const end = this.endOffset(topicPartition);
    if (!Number.isInteger(nextOffset) || nextOffset < 0 || nextOffset > end) {
      throw new Error(
        `commit ${topicPartitionKey(topicPartition)}@${nextOffset} is outside the log [0, ${end}]`,
      );
    }
    let group = this.#committed.get(groupId);
    if (!group) {
      group = new Map();
      this.#committed.set(groupId, group);
    }
    group.set(topicPartitionKey(topicPartition), nextOffset);
  }

  /** Resolves on the next append, or after `ms`, whichever comes first. */
  waitForAppend(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#appendListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#appendListeners.add(done);
    });
  }

  #append(record: ProducedRecord): TopicPartition & { offset: number } {
    const count = this.#partitionCounts.get(record.topic);
    if (count === undefined) throw new Error(`unknown topic ${record.topic}`);
    const partition = record.partition ?? this.#choosePartition(record.topic, record.key, count);
    if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
      throw new Error(`topic ${record.topic} has no partition ${partition}`);
    }
    const log = this.#log({ topic: record.topic, partition });
    const offset = log.length;
    log.push({
      topic: record.topic,
      partition,
      offset,
      timestamp: record.timestamp ?? this.#now(),
      timestampType: 'CREATE_TIME',
      key: record.key,
      value: record.value,
      headers: record.headers ?? [],
    });
    return { topic: record.topic, partition, offset };
  }

  #choosePartition(topic: string, key: Buffer | null, count: number): number {
    if (key !== null) return partitionForKey(key, count);
    const next = this.#roundRobin.get(topic) ?? 0;
    this.#roundRobin.set(topic, next + 1);
    return next % count;
  }

  #log(topicPartition: TopicPartition): SourceRecord[] {
    const log = this.#partitions.get(topicPartitionKey(topicPartition));
    if (!log) throw new Error(`unknown partition ${topicPartitionKey(topicPartition)}`);
    return log;
  }
}

/** One consumer of the log: its fetch positions are its own; its commits belong to the group. */
class InMemoryConsumer implements RecordSource {
  readonly bootstrapServers = 'memory:9092';
  readonly #log: InMemoryLog;
  readonly #groupId: string;
  readonly #owned: readonly TopicPartition[];
  readonly #positions = new Map<string, number>();
  #started = false;

  constructor(log: InMemoryLog, groupId: string, owned: readonly TopicPartition[]) {
    this.#log = log;
    this.#groupId = groupId;
    this.#owned = owned;
  }

  describe(): string {
    return 'memory';
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const tp of this.#owned) {
      // Nothing committed: start at the log start (Lambda's TRIM_HORIZON).
      this.#positions.set(topicPartitionKey(tp), this.#log.committedOffset(this.#groupId, tp) ?? 0);
    }
  }

  assignments(): readonly TopicPartition[] {
    return this.#owned;
  }

  async poll(topicPartition: TopicPartition, options: PollOptions): Promise<readonly SourceRecord[]> {
    const key = topicPartitionKey(topicPartition);
    const position = this.#positions.get(key);
    if (position === undefined) return [];
    if (position >= this.#log.endOffset(topicPartition) && (options.maxWaitMs ?? 0) > 0) {
      await this.#log.waitForAppend(options.maxWaitMs ?? 0);
    }
    const records = this.#log.read(topicPartition, position, options.maxRecords);
    const last = records.at(-1);
    if (last) this.#positions.set(key, last.offset + 1);
    return records;
  }

  async seek(topicPartition: TopicPartition, offset: number): Promise<void> {
    this.#positions.set(topicPartitionKey(topicPartition), offset);
  }

  async commit(topicPartition: TopicPartition, nextOffset: number): Promise<void> {
    this.#log.commit(this.#groupId, topicPartition, nextOffset);
  }

  async progress(): Promise<PartitionProgress[]> {
    return this.#owned.map((tp) => ({
      ...tp,
      committedOffset: this.#log.committedOffset(this.#groupId, tp) ?? 0,
      endOffset: this.#log.endOffset(tp),
    }));
  }

  async close(): Promise<void> {
    this.#positions.clear();
  }
}
