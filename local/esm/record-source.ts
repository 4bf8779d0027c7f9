/**
 * The record source port: what the ESM emulator needs from a partitioned log.
 *
 * The source behaves like a Kafka consumer that never commits on its own: it hands out records per
 * partition from a fetch position, moves that position only when told (`poll` advances it, `seek` resets
 * it) and stores a committed offset only when the emulator calls `commit`. Batching, invocation, retries
 * and checkpoint decisions all belong to the emulator, as they belong to Lambda's event source mapping.
 *
 * Implementations: `InMemoryLog` (local/esm/in-memory-log.ts) and a Kafka-protocol source (local/kafka/).
 */

/** A topic and one of its partitions; `"<topic>-<partition>"` is its key in the Kafka event's `records`. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** One header as Kafka carries it: a name and raw bytes. Names may repeat. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer;
}

/** A record as read from the log: raw bytes, not yet shaped as Lambda shapes them. */
export interface SourceRecord extends TopicPartition {
  readonly offset: number;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  readonly timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  /** Null for a record without key (or a tombstone's value). */
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/** Where a partition stands: what is committed and where the log ends. Lag = `endOffset - committedOffset`. */
export interface PartitionProgress extends TopicPartition {
  /** The next offset the consumer group would read after a restart; the log start when nothing is committed. */
  readonly committedOffset: number;
  /** The offset the next appended record will get (Kafka's high watermark). */
  readonly endOffset: number;
}

export interface PollOptions {
  /** Upper bound on the records returned. */
  readonly maxRecords: number;
  /**
   * How long to wait for at least one record when none is available at the position.
   * @default 0: answer at once
   */
  readonly maxWaitMs?: number;
}

export interface RecordSource {
  /** For summaries and logs, e.g. `memory` or `kafka (127.0.0.1:39123)`. */
  describe(): string;
  /** What Lambda puts in the event's `bootstrapServers`: `host:port,host:port`. */
  readonly bootstrapServers: string;
  /**
   * Connects (joins the consumer group) and sets each owned partition's position to its committed offset,
   * or to the log start when none is committed (Lambda's TRIM_HORIZON). A second call waits for the first
   * and changes nothing, so a caller may join early (while other things start) and the mapping start it again.
   */
  start(): Promise<void>;
  /** The partitions this consumer owns now. May change after a rebalance; never includes a partition twice. */
  assignments(): readonly TopicPartition[];
  /**
   * Records of one partition from its fetch position, in offset order, with no gaps other than the log's own
   * (compaction, transaction markers); moves the position past the last record returned.
   * An empty array when nothing is available (or the partition is no longer owned).
   */
  poll(topicPartition: TopicPartition, options: PollOptions): Promise<readonly SourceRecord[]>;
  /** Moves the partition's fetch position: the next `poll` starts at `offset` (a redelivery when it goes back). */
  seek(topicPartition: TopicPartition, offset: number): Promise<void>;
  /**
   * Stores the consumer group's committed offset for the partition: `nextOffset` is the first offset NOT yet
   * done (Kafka's convention). Never moves the fetch position.
   */
  commit(topicPartition: TopicPartition, nextOffset: number): Promise<void>;
  /** Committed offset and log end of every partition of the source's topics, owned or not. */
  progress(): Promise<readonly PartitionProgress[]>;
  /** Leaves the group and releases connections. The log and the committed offsets outlive it. */
  close(): Promise<void>;
}

/** A record to append; without `partition` the log picks one from the key (like Kafka's default partitioner). */
export interface ProducedRecord {
  readonly topic: string;
  readonly partition?: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: readonly RecordHeader[];
  /** Epoch milliseconds; defaults to the append time. */
  readonly timestamp?: number;
}

/** The producer side of the same log: the demo and the tests write their workload through it. */
export interface RecordSink {
  /** Appends in the given order and resolves with each record's coordinates, in the same order. */
  produce(
    records: readonly ProducedRecord[],
  ): Promise<readonly (TopicPartition & { readonly offset: number })[]>;
  close(): Promise<void>;
}

/** The `records` map key Lambda uses for a partition. https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html */
export function topicPartitionKey({ topic, partition }: TopicPartition): string {
  return `${topic}-${partition}`;
}
