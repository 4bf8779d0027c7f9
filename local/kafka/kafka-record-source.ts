import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Batch, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type {
  PartitionProgress,
  PollOptions,
  RecordHeader,
  RecordSource,
  SourceRecord,
  TopicPartition,
} from '../esm/record-source.js';
import { topicPartitionKey } from '../esm/record-source.js';
import { KafkaConsumerGroupError } from './errors.js';

export interface KafkaRecordSourceOptions {
  readonly topics: readonly string[];
  /** The consumer group: committed offsets live under it and outlive the process. */
  readonly groupId: string;
  /** For `describe()` and the event's `bootstrapServers`. */
  readonly brokers: readonly string[];
  /**
   * How long the group waits for a silent member before handing its partitions to someone else: after a
   * SIGKILL, a restarted consumer gets its assignment only once the dead member's session is over.
   * 6000 ms is Kafka's `group.min.session.timeout.ms`, the lowest a real broker accepts.
   * @default 6000
   */
  readonly sessionTimeoutMs?: number;
  /**
   * Records fetched ahead per partition; fetching that partition pauses above it and resumes below half.
   * @default 10000 (Lambda's largest Kafka batch)
   */
  readonly maxBufferedRecordsPerPartition?: number;
  /** @default 30000 */
  readonly joinTimeoutMs?: number;
}

interface PartitionState {
  /** Fetched and not yet polled: consecutive from the fetch position, with only the log's own gaps. */
  buffered: SourceRecord[];
  paused: boolean;
  /** Pending `poll` calls waiting for records. */
  readonly waiters: Set<() => void>;
}

/**
 * A RecordSource over a Kafka topic, through a kafkajs consumer group with auto-commit off.
 *
 * kafkajs's `eachBatch` only feeds a per-partition buffer and returns at once: the emulator decides what a
 * batch is (`poll`), when to redeliver (`seek`) and what is done (`commit`). That keeps kafkajs's own loop,
 * which runs partitions one fetch at a time and heartbeats between fetches, from ever waiting on a handler.
 *
 * - `poll` takes records from the buffer; fetching a partition pauses when its buffer is full.
 * - `seek` drops the buffer and moves kafkajs's fetch position (`consumer.seek`). Until kafkajs applies the
 *   seek on its next fetch it discards, or marks stale, every batch of that partition, so nothing fetched
 *   from the old position reaches the buffer.
 * - `commit` is an explicit `commitOffsets` of exactly the given offset, never kafkajs's resolved offsets.
 * - After a rebalance or a restart kafkajs starts each owned partition at its committed offset, so every
 *   buffer is dropped: what was fetched but not committed comes again (at-least-once, deduplicated later).
 */
export class KafkaRecordSource implements RecordSource {
  readonly bootstrapServers: string;
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly maxBuffered: number;
  private readonly joinTimeoutMs: number;
  private partitions = new Map<string, PartitionState>();
  private owned: readonly TopicPartition[] = [];
  /** Set when kafkajs stops the consumer for good: every later call throws it. */
  private fatalError: Error | undefined;
  private closed = false;
  private adminConnected: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  /** While the group join is pending: ends it with an error (on `close`). */
  private abortJoin: ((error: Error) => void) | undefined;

  constructor(
    kafka: Kafka,
    private readonly options: KafkaRecordSourceOptions,
  ) {
    this.bootstrapServers = options.brokers.join(',');
    this.maxBuffered = options.maxBufferedRecordsPerPartition ?? 10_000;
    this.joinTimeoutMs = options.joinTimeoutMs ?? 30_000;
    const sessionTimeout = options.sessionTimeoutMs ?? 6000;
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout,
      heartbeatInterval: Math.max(100, Math.floor(sessionTimeout / 6)),
      // The fetch loop answers at once when nothing new is there, so disconnects and seeks act quickly.
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: true,
    });
    this.admin = kafka.admin();
  }

  describe(): string {
    return `kafka (${this.options.brokers[0] ?? 'no broker'})`;
  }

  /** Joins the group; a second call waits for the first join (the demo joins while the rest starts). */
  start(): Promise<void> {
    this.started ??= this.join();
    return this.started;
  }

  private async join(): Promise<void> {
    let settle: (error?: unknown) => void = () => {};
    const joined = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          settle(
            new KafkaConsumerGroupError(
              `group ${this.options.groupId} assigned no partitions within ${this.joinTimeoutMs} ms`,
            ),
          ),
        this.joinTimeoutMs,
      );
      settle = (error) => {
        clearTimeout(timer);
        this.abortJoin = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
        this.assign(payload.memberAssignment);
        settle();
      });
      this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
        if (payload.restart) return;
        this.fatalError = new KafkaConsumerGroupError(`the consumer of group ${payload.groupId} stopped`, {
          cause: payload.error,
        });
        this.wakeAllPollers();
        settle(this.fatalError);
      });
    });
    // Awaited below; a failure (or `close`) before then must neither go unhandled nor leave the timer running.
    joined.catch(() => {});
    this.abortJoin = settle;
    try {
      await Promise.all([this.consumer.connect(), this.connectAdmin()]);
      await this.consumer.subscribe({ topics: [...this.options.topics], fromBeginning: true });
      await this.consumer.run({
        autoCommit: false,
        // Offsets are resolved only for records taken into a buffer, so a discarded fetch is fetched again.
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => this.takeBatch(payload),
      });
    } catch (error) {
      settle(error);
    }
    await joined;
  }

  assignments(): readonly TopicPartition[] {
    return this.owned;
  }

  async poll(topicPartition: TopicPartition, options: PollOptions): Promise<readonly SourceRecord[]> {
    this.throwIfStopped();
    let state = this.partitions.get(topicPartitionKey(topicPartition));
    if (state && state.buffered.length === 0 && (options.maxWaitMs ?? 0) > 0) {
      await waitForRecords(state, options.maxWaitMs ?? 0);
      this.throwIfStopped();
      // A rebalance while waiting replaces the state: read what the partition holds now.
      state = this.partitions.get(topicPartitionKey(topicPartition));
    }
    if (!state) return [];
    const records = state.buffered.splice(0, options.maxRecords);
    if (state.paused && state.buffered.length <= this.maxBuffered / 2) {
      state.paused = false;
      this.consumer.resume([{ topic: topicPartition.topic, partitions: [topicPartition.partition] }]);
    }
    return records;
  }

  async seek(topicPartition: TopicPartition, offset: number): Promise<void> {
    this.throwIfStopped();
    const state = this.partitions.get(topicPartitionKey(topicPartition));
    if (!state) return;
    state.buffered = [];
    this.consumer.seek({ ...topicPartition, offset: String(offset) });
    if (state.paused) {
      state.paused = false;
      this.consumer.resume([{ topic: topicPartition.topic, partitions: [topicPartition.partition] }]);
    }
  }

  async commit(topicPartition: TopicPartition, nextOffset: number): Promise<void> {
    this.throwIfStopped();
    const offsets = [{ ...topicPartition, offset: String(nextOffset) }];
    for (let attempt = 1; ; attempt++) {
      try {
        await this.consumer.commitOffsets(offsets);
        return;
      } catch (error) {
        // A rebalance or a moved coordinator fails the commit with a retriable error; kafkajs rejoins on its
        // own and the next attempt carries the new generation. The effect is done: the offset must be stored.
        if (attempt >= COMMIT_ATTEMPTS || !isRetriable(error)) throw error;
        await sleep(100 * attempt);
      }
    }
  }

  /** Works before `start` too: it reads the broker, not this consumer. */
  async progress(): Promise<readonly PartitionProgress[]> {
    await this.connectAdmin();
    const perTopic = await Promise.all(
      this.options.topics.map(async (topic) => {
        const [logOffsets, [groupOffsets]] = await Promise.all([
          this.admin.fetchTopicOffsets(topic),
          this.admin.fetchOffsets({ groupId: this.options.groupId, topics: [topic] }),
        ]);
        const committedByPartition = new Map(
          (groupOffsets?.partitions ?? []).map(({ partition, offset }) => [partition, Number(offset)]),
        );
        return logOffsets
          .map(({ partition, low, high }): PartitionProgress => {
            const committed = committedByPartition.get(partition) ?? -1;
            // -1: nothing committed yet; the group would start at the log start (TRIM_HORIZON).
            return {
              topic,
              partition,
              committedOffset: committed >= 0 ? committed : Number(low),
              endOffset: Number(high),
            };
          })
          .sort((a, b) => a.partition - b.partition);
      }),
    );
    return perTopic.flat();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortJoin?.(
      new KafkaConsumerGroupError('the Kafka record source was closed before the group joined'),
    );
    this.wakeAllPollers();
    await Promise.all([this.consumer.disconnect(), this.admin.disconnect()]);
  }

  private connectAdmin(): Promise<void> {
    this.adminConnected ??= this.admin.connect();
    return this.adminConnected;
  }

  /** A new generation of the group: kafkajs restarts every owned partition from its committed offset. */
  private assign(memberAssignment: Record<string, number[]>): void {
    const previous = this.partitions;
    this.owned = Object.entries(memberAssignment).flatMap(([topic, partitions]) =>
      [...partitions].sort((a, b) => a - b).map((partition) => ({ topic, partition })),
    );
    this.partitions = new Map(
      this.owned.map((topicPartition) => [
        topicPartitionKey(topicPartition),
        { buffered: [], paused: false, waiters: new Set() },
      ]),
    );
    for (const state of previous.values()) wake(state);
    // kafkajs keeps a partition paused across generations; the fresh, empty buffers want records.
    const byTopic = Object.entries(memberAssignment).map(([topic, partitions]) => ({ topic, partitions }));
    if (byTopic.length > 0) this.consumer.resume(byTopic);
  }

  private takeBatch({ batch, resolveOffset, isStale }: EachBatchPayload): void {
    const state = this.partitions.get(topicPartitionKey(batch));
    // A seek not yet applied by kafkajs: this batch comes from the old position.
    if (!state || isStale()) return;
    const lastMessage = batch.messages[batch.messages.length - 1];
    if (!lastMessage) return;
    for (const message of batch.messages) state.buffered.push(toSourceRecord(batch, message));
    // kafkajs maps the last message's offset to the batch's last offset, so trailing control records are skipped.
    resolveOffset(lastMessage.offset);
    wake(state);
    if (!state.paused && state.buffered.length >= this.maxBuffered) {
      state.paused = true;
      this.consumer.pause([{ topic: batch.topic, partitions: [batch.partition] }]);
    }
  }

  private wakeAllPollers(): void {
    for (const state of this.partitions.values()) wake(state);
  }

  private throwIfStopped(): void {
    if (this.fatalError) throw this.fatalError;
    if (this.closed) throw new KafkaConsumerGroupError('the Kafka record source is closed');
  }
}

const COMMIT_ATTEMPTS = 5;

function isRetriable(error: unknown): boolean {
  return error instanceof Error && (error as Error & { retriable?: boolean }).retriable === true;
}

function wake(state: PartitionState): void {
  for (const waiter of state.waiters) waiter();
  state.waiters.clear();
}

function waitForRecords(state: PartitionState, maxWaitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      state.waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, maxWaitMs);
    state.waiters.add(done);
  });
}

function toSourceRecord(batch: Batch, message: KafkaMessage): SourceRecord {
  // kafkajs keeps the record batch's attributes on each message, untyped; 1 is LOG_APPEND_TIME.
  const { batchContext } = message as KafkaMessage & { batchContext?: { timestampType?: number } };
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: Number(message.offset),
    timestamp: Number(message.timestamp),
    timestampType: batchContext?.timestampType === 1 ? 'LOG_APPEND_TIME' : 'CREATE_TIME',
    key: message.key ?? null,
    value: message.value ?? null,
    headers: toRecordHeaders(message.headers ?? {}),
  };
}

/** kafkajs folds a repeated header name into an array; unfold it (order among different names is kafkajs's). */
function toRecordHeaders(headers: NonNullable<KafkaMessage['headers']>): RecordHeader[] {
  return Object.entries(headers).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((item) => ({
      key,
      value: Buffer.isBuffer(item) ? item : Buffer.from(item),
    })),
  );
}
