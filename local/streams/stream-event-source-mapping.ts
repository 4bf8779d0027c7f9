/**
 * An emulator of Lambda's DynamoDB Streams event source mapping, over DynamoDB Local: it reads a table's
 * stream, builds stream events as Lambda does, invokes the function through the function port
 * (local/esm/lambda-function.ts) and checkpoints from its answer. The Kafka emulator's counterpart
 * (local/esm/event-source-mapping.ts); the semantics it reproduces, with their pages, are in
 * docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source.
 *
 * Model: one loop per shard (shard-processor.ts), each one batch at a time (ParallelizationFactor 1, not
 * emulated beyond that), started once the shard's parent is done with; a slower loop lists the shards again
 * for new ones. Checkpoints live in memory: a new mapping starts again from its starting position.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient, Shard } from '@aws-sdk/client-dynamodb-streams';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { type MappingStats, newMappingStats } from '../esm/esm-stats.js';
import { functionArn, type LambdaFunction } from '../esm/lambda-function.js';
import { InMemoryDestination, type OnFailureDestination } from '../esm/on-failure-destination.js';
import { Wakeup } from '../esm/wakeup.js';
import {
  type CrashFaults,
  ShardProcessor,
  type ShardProgress,
  type StreamInvocationReport,
} from './shard-processor.js';
import { ShardReader } from './shard-reader.js';
import type { DynamoDBStreamEvent } from './stream-event.js';
import { streamRecordFilter } from './stream-filter.js';
import type { StreamOnFailureRecord } from './stream-on-failure.js';
import {
  type ResolvedStreamSettings,
  resolveStreamSettings,
  type StreamMappingSettings,
} from './stream-settings.js';
import { describeShards, isClosed, latestStreamArn, localStreamsClient, mayRead } from './stream-shards.js';

export type { CrashFaults, ShardProgress, StreamInvocationReport } from './shard-processor.js';

export interface StreamEventSourceMappingOptions {
  /** DynamoDB Local's endpoint: it serves both the DynamoDB and the DynamoDB Streams API. */
  readonly endpoint: string;
  /** Clients to use instead of ones made for `endpoint` (a unit test's fakes); left open on stop. */
  readonly clients?: { readonly dynamoDb: DynamoDBClient; readonly streams: DynamoDBStreamsClient };
  /** The table whose latest stream is read; it must have one (StreamSpecification). */
  readonly tableName: string;
  readonly function: LambdaFunction<DynamoDBStreamEvent>;
  /** Where discarded batches go. @default a new InMemoryDestination (see `destination`) */
  readonly destination?: OnFailureDestination<StreamOnFailureRecord>;
  readonly settings?: StreamMappingSettings;
  /** Crash injection (a FaultPlan from local/esm/fault-plan.ts fits). @default none */
  readonly faults?: CrashFaults;
  /** Epoch ms; record ages are measured with it. @default Date.now */
  readonly now?: () => number;
  /** Called after every invocation, for progress displays and tests. */
  readonly onInvocation?: (report: StreamInvocationReport) => void;
}

interface ShardEntry {
  readonly shard: Shard;
  /** Where reading starts when no record of it was done with yet. */
  readonly start: 'TRIM_HORIZON' | 'LATEST';
  processor?: ShardProcessor;
  run?: Promise<void>;
}

export class StreamEventSourceMapping {
  readonly settings: ResolvedStreamSettings;
  readonly stats: MappingStats = newMappingStats();
  readonly destination: OnFailureDestination<StreamOnFailureRecord>;
  readonly #options: StreamEventSourceMappingOptions;
  readonly #dynamoDb: DynamoDBClient;
  readonly #streams: DynamoDBStreamsClient;
  readonly #matches: ReturnType<typeof streamRecordFilter>;
  readonly #shards = new Map<string, ShardEntry>();
  readonly #finished = new Set<string>();
  /** Woken on every step forward of any shard, and on a failure: what `drained` waits on. */
  readonly #progress = new Wakeup();
  /** Cuts short the shards' waits between empty reads, so a drain reads at once. */
  readonly #idle = new Wakeup();
  /** Cuts short every wait, on stop. */
  readonly #stopping = new Wakeup();
  #streamArn: string | undefined;
  #discovery: Promise<void> | undefined;
  #running = false;
  #failure: unknown;
  /** Raised by each `drained` call: a shard caught up at a later epoch has read all written before it. */
  #epoch = 0;
  /** The epoch at which the last shard listing began. */
  #listedEpoch = -1;

  constructor(options: StreamEventSourceMappingOptions) {
    this.settings = resolveStreamSettings(options.settings);
    this.destination = options.destination ?? new InMemoryDestination<StreamOnFailureRecord>();
    this.#options = options;
    this.#dynamoDb = options.clients?.dynamoDb ?? localDynamoDbClient(options.endpoint);
    this.#streams = options.clients?.streams ?? localStreamsClient(options.endpoint);
    this.#matches = streamRecordFilter(this.settings.filters);
  }

  /** The stream read; known once started. */
  get streamArn(): string {
    if (this.#streamArn === undefined) throw new Error('the mapping has not started');
    return this.#streamArn;
  }

  /**
   * Finds the stream and starts a loop per readable shard. With LATEST, returns once each open shard's
   * starting point is fixed: records written after `start` resolves are delivered, earlier ones are not.
   */
  async start(): Promise<void> {
    if (this.#running || this.#streamArn !== undefined) throw new Error('the mapping was started before');
    this.#streamArn = await latestStreamArn(this.#dynamoDb, this.#options.tableName);
    const shards = await describeShards(this.#streams, this.#streamArn);
    this.#running = true;
    const latest = this.settings.startingPosition === 'LATEST';
    for (const shard of shards) {
      this.#register(shard, this.settings.startingPosition);
      // LATEST: a shard already closed holds only records from before the start.
      if (latest && isClosed(shard) && shard.ShardId) this.#finished.add(shard.ShardId);
    }
    this.#listedEpoch = 0;
    await this.#startReadable();
    this.#discovery = this.#discoveryLoop().catch((error: unknown) => this.#fail(error));
  }

  /**
   * Resolves once everything written to the stream before the call is done with: delivered and answered,
   * filtered out, or discarded. Rejects when the mapping failed or `timeoutMs` passed (naming each shard's
   * checkpoint and kept records). DynamoDB Local writes a stream record with its change, so a read begun after
   * the call that finds nothing new means the shard has caught up.
   */
  async drained(timeoutMs = 30_000): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    if (!this.#running) throw new Error('the mapping is not running');
    const target = ++this.#epoch;
    const deadline = Date.now() + timeoutMs;
    await this.#discover();
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      if (!this.#running) throw new Error('the mapping is not running');
      if (this.#isDrainedSince(target)) return;
      const left = deadline - Date.now();
      if (left <= 0) {
        const shards = this.progress()
          .map((p) => `${p.shardId}: checkpoint ${p.checkpoint ?? 'none'}, ${p.pending} kept`)
          .join('; ');
        throw new Error(`the stream was not drained within ${timeoutMs} ms (${shards || 'no shard read'})`);
      }
      const next = this.#progress.next(Math.min(left, 100));
      this.#idle.wake();
      await next.promise;
    }
  }

  /** Each shard read so far: its checkpoint, what it keeps, whether it is done with. */
  progress(): ShardProgress[] {
    return [...this.#shards.values()].flatMap((entry) => (entry.processor ? [entry.processor.progress] : []));
  }

  /** Stops after the invocations in flight settle; rethrows what made the mapping fail, if anything. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping.wake();
    this.#idle.wake();
    this.#progress.wake();
    await this.#discovery;
    await Promise.all([...this.#shards.values()].map((entry) => entry.run));
    if (!this.#options.clients) {
      this.#streams.destroy();
      this.#dynamoDb.destroy();
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  #register(shard: Shard, start: ShardEntry['start']): void {
    const id = shard.ShardId;
    if (id !== undefined && !this.#shards.has(id)) this.#shards.set(id, { shard, start });
  }

  /** Lists the shards again: new ones (a split, a roll-over) are read from their first record. */
  async #discover(): Promise<void> {
    const epoch = this.#epoch;
    const shards = await describeShards(this.#streams, this.streamArn);
    for (const shard of shards) this.#register(shard, 'TRIM_HORIZON');
    this.#listedEpoch = Math.max(this.#listedEpoch, epoch);
    await this.#startReadable();
  }

  async #discoveryLoop(): Promise<void> {
    while (this.#running) {
      await this.#stopping.next(this.settings.describeIntervalMs).promise;
      if (this.#running) await this.#discover();
    }
  }

  /** Starts a loop for every shard not started, not done with, and whose parent is done with. */
  async #startReadable(): Promise<void> {
    const listed = new Set(this.#shards.keys());
    const opening: Promise<void>[] = [];
    for (const [id, entry] of this.#shards) {
      if (!this.#running || entry.processor || this.#finished.has(id)) continue;
      if (!mayRead(entry.shard, listed, this.#finished)) continue;
      const reader = new ShardReader(this.#streams, this.streamArn, id, entry.start);
      const processor = this.#processor(id, reader);
      entry.processor = processor;
      opening.push(
        reader.open().then(() => {
          entry.run = processor.run().then(
            () => this.#shardDone(id),
            (error: unknown) => this.#fail(error),
          );
        }),
      );
    }
    await Promise.all(opening);
  }

  #processor(shardId: string, reader: ShardReader): ShardProcessor {
    const options = this.#options;
    const running = () => this.#running;
    return new ShardProcessor({
      shardId,
      streamArn: this.streamArn,
      functionArn: functionArn({ functionName: this.settings.functionName }),
      source: reader,
      settings: this.settings,
      function: options.function,
      destination: this.destination,
      stats: this.stats,
      matches: this.#matches,
      faults: options.faults,
      now: options.now ?? Date.now,
      running,
      idle: async (ms) => {
        if (running()) await this.#idle.next(ms).promise;
      },
      sleep: async (ms) => {
        if (running()) await this.#stopping.next(ms).promise;
      },
      epoch: () => this.#epoch,
      onProgress: () => this.#progress.wake(),
      onInvocation: options.onInvocation,
    });
  }

  /** A shard read to its end: its children may start. */
  async #shardDone(shardId: string): Promise<void> {
    if (!this.#running) return;
    this.#finished.add(shardId);
    this.#progress.wake();
    await this.#startReadable().catch((error: unknown) => this.#fail(error));
  }

  #isDrainedSince(epoch: number): boolean {
    if (this.#listedEpoch < epoch) return false;
    for (const [id, entry] of this.#shards) {
      if (this.#finished.has(id)) continue;
      if (!entry.processor?.caughtUpSince(epoch)) return false;
    }
    return true;
  }

  #fail(error: unknown): void {
    this.#failure ??= error;
    this.#running = false;
    this.#stopping.wake();
    this.#idle.wake();
    this.#progress.wake();
  }
}
