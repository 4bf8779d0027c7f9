/**
 * One shard's share of the emulated mapping, as Lambda's poller handles a shard with ParallelizationFactor 1:
 * it reads the shard in order, keeps the records not yet checkpointed, and invokes the function with them in
 * batches, one at a time, so a record is never delivered before the records ahead of it are done with. What
 * happens after each invocation is in docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source.
 *
 * The checkpoint is kept here, in memory: after a failure the batch is rebuilt from the records kept since
 * the checkpoint, which is what Lambda's re-read from its checkpoint gives.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { countFailedInvocation, type MappingStats } from '../esm/esm-stats.js';
import type { InvocationOutcome, LambdaFunction } from '../esm/lambda-function.js';
import { MAX_INVOCATION_PAYLOAD_BYTES } from '../esm/msk-event.js';
import type { OnFailureDestination } from '../esm/on-failure-destination.js';
import { RetryCounter } from '../esm/retry-counter.js';
import type { ShardRecordSource } from './shard-reader.js';
import {
  type DynamoDBRecord,
  type DynamoDBStreamEvent,
  type ShardRecord,
  STREAM_EVENT_ENVELOPE_BYTES,
  streamEvent,
  toShardRecord,
} from './stream-event.js';
import {
  buildStreamOnFailureRecord,
  type StreamFailureCondition,
  type StreamOnFailureRecord,
} from './stream-on-failure.js';
import { interpretStreamResponse } from './stream-response.js';
import type { ResolvedStreamSettings } from './stream-settings.js';

/** Fault injection: how many DynamoDB writes an invocation may make before its environment dies. */
export interface CrashFaults {
  crashAfterWrites(recordCount: number): number | undefined;
}

export interface StreamInvocationReport {
  readonly requestId: string;
  readonly shardId: string;
  readonly event: DynamoDBStreamEvent;
  readonly outcome: InvocationOutcome;
  readonly crashAfterWrites?: number;
}

export interface ShardProgress {
  readonly shardId: string;
  /** The last sequence number done with (delivered, filtered out or discarded); undefined before any. */
  readonly checkpoint: string | undefined;
  /** Records read and kept for the function, not yet checkpointed. */
  readonly pending: number;
  /** Closed, read to its end and checkpointed past its last record. */
  readonly ended: boolean;
}

export interface ShardProcessorOptions {
  readonly shardId: string;
  readonly streamArn: string;
  readonly functionArn: string;
  readonly source: ShardRecordSource;
  readonly settings: ResolvedStreamSettings;
  readonly function: LambdaFunction<DynamoDBStreamEvent>;
  readonly destination: OnFailureDestination<StreamOnFailureRecord>;
  /** The mapping's counters, shared by its shards. */
  readonly stats: MappingStats;
  readonly matches: (record: DynamoDBRecord) => boolean;
  readonly faults: CrashFaults | undefined;
  /** Epoch ms; record ages are measured with it. */
  readonly now: () => number;
  readonly running: () => boolean;
  /** Waits `ms` after a read that found nothing; cut short to read at once (a drain, a stop). */
  readonly idle: (ms: number) => Promise<void>;
  /** Waits `ms` inside a batching window; cut short only by a stop. */
  readonly sleep: (ms: number) => Promise<void>;
  /** The mapping's drain epoch now; a read started at epoch E that finds nothing means caught up since E. */
  readonly epoch: () => number;
  /** Called on every step forward: a checkpoint moved, the shard caught up or ended. */
  readonly onProgress: () => void;
  readonly onInvocation?: ((report: StreamInvocationReport) => void) | undefined;
}

export class ShardProcessor {
  readonly #o: ShardProcessorOptions;
  readonly #retries: RetryCounter<string>;
  /** Records read and matching a filter, not yet checkpointed, in shard order. */
  readonly #pending: ShardRecord[] = [];
  /** Sizes bisection gave the next batches, the next first (BisectBatchOnFunctionError). */
  readonly #bisected: number[] = [];
  #checkpoint: string | undefined;
  #lastRead: string | undefined;
  #highestDelivered = -1n;
  #readEnded = false;
  #ended = false;
  #caughtUpEpoch = -1;

  constructor(options: ShardProcessorOptions) {
    this.#o = options;
    this.#retries = new RetryCounter(options.settings.maxRetryAttempts);
  }

  get progress(): ShardProgress {
    const { shardId } = this.#o;
    return { shardId, checkpoint: this.#checkpoint, pending: this.#pending.length, ended: this.#ended };
  }

  /** Whether everything written before `epoch` began has been done with. */
  caughtUpSince(epoch: number): boolean {
    return this.#ended || this.#caughtUpEpoch >= epoch;
  }

  /** Runs until the shard is done with (closed and read to its end) or the mapping stops. */
  async run(): Promise<void> {
    while (this.#o.running()) {
      const maxRecords = this.#bisected[0] ?? this.#o.settings.batchSize;
      if (!(await this.#collect(maxRecords))) {
        if (this.#readEnded) {
          this.#ended = true;
          this.#o.onProgress();
          return;
        }
        await this.#o.idle(this.#o.settings.pollIntervalMs);
        continue;
      }
      if (await this.#discardAged(maxRecords)) continue;
      await this.#deliver(this.#takeBatch(maxRecords));
      // A retry needs no read, and an in-process function that fails at once settles in microtasks: without
      // a turn of the event loop here, a batch failing for ever would starve every timer (a drain's deadline).
      await setImmediate();
    }
  }

  /**
   * Reads until `maxRecords` are kept, or what the shard has now is read (MaximumBatchingWindowInSeconds 0),
   * or the batching window that opened with the first kept record ends. False when nothing is kept.
   */
  async #collect(maxRecords: number): Promise<boolean> {
    const pending = this.#pending;
    let windowEnds = pending.length > 0 ? Date.now() + this.#o.settings.batchingWindowMs : undefined;
    while (pending.length < maxRecords && !this.#readEnded && this.#o.running()) {
      const epoch = this.#o.epoch();
      const { records, ended } = await this.#o.source.read();
      this.#readEnded = ended;
      this.#keep(records.map((record) => toShardRecord(record, this.#o.streamArn)));
      if (pending.length > 0) windowEnds ??= Date.now() + this.#o.settings.batchingWindowMs;
      if (records.length > 0) continue;
      if (pending.length === 0) {
        // A read begun at `epoch` found nothing more, and nothing is kept: all written before it is done with.
        this.#caughtUpEpoch = epoch;
        this.#o.onProgress();
        return false;
      }
      const left = (windowEnds ?? 0) - Date.now();
      if (left <= 0) break;
      await this.#o.sleep(Math.min(left, this.#o.settings.pollIntervalMs));
    }
    return pending.length > 0;
  }

  /** Keeps the records a filter matches; the others are checkpointed past once nothing is kept before them. */
  #keep(records: readonly ShardRecord[]): void {
    for (const record of records) {
      this.#lastRead = record.sequenceNumber;
      if (this.#o.matches(record.event)) this.#pending.push(record);
      else {
        this.#o.stats.filteredOutRecords++;
        if (this.#pending.length === 0) this.#checkpoint = record.sequenceNumber;
      }
    }
    if (records.length > 0 && this.#pending.length === 0) this.#o.onProgress();
  }

  /** The next batch: the first kept records, at most `maxRecords` and within Lambda's 6 MB payload. */
  #takeBatch(maxRecords: number): ShardRecord[] {
    const batch: ShardRecord[] = [];
    let bytes = STREAM_EVENT_ENVELOPE_BYTES;
    for (const record of this.#pending) {
      if (batch.length >= maxRecords) break;
      // A DynamoDB item is at most 400 KB, so one record always fits.
      if (batch.length > 0 && bytes + record.bytes > MAX_INVOCATION_PAYLOAD_BYTES) break;
      batch.push(record);
      bytes += record.bytes;
    }
    return batch;
  }

  /** MaximumRecordAgeInSeconds: discards the kept records at the front that are older; true when it did. */
  async #discardAged(maxRecords: number): Promise<boolean> {
    const { maxRecordAgeMs } = this.#o.settings;
    if (maxRecordAgeMs === -1) return false;
    const now = this.#o.now();
    const fresh = this.#pending.findIndex((record) => now - record.createdAtMs <= maxRecordAgeMs);
    const aged = Math.min(fresh === -1 ? this.#pending.length : fresh, maxRecords);
    if (aged === 0) return false;
    await this.#discard(this.#pending.slice(0, aged), 'RecordAgeExceeded', false);
    return true;
  }

  async #deliver(batch: ShardRecord[]): Promise<void> {
    const outcome = await this.#invoke(batch);
    if (outcome.kind !== 'returned') {
      countFailedInvocation(this.#o.stats, outcome);
      return this.#failed(batch, true);
    }
    const verdict = interpretStreamResponse(
      batch,
      outcome.response,
      this.#o.settings.reportBatchItemFailures,
    );
    if (verdict.kind === 'success') return this.#checkpointPast(batch.length);
    if (verdict.kind === 'failed') {
      this.#o.stats.invalidResponses++;
      return this.#failed(batch, false);
    }
    // Checkpoint before the lowest reported record, retry from it ("bisected at the returned sequence
    // number" when bisecting too: the rest of this batch stays one batch).
    const retried = batch.slice(verdict.failedIndex);
    this.#o.stats.partialFailures++;
    this.#o.stats.reportedRecords += retried.length;
    this.#checkpointPast(verdict.failedIndex);
    if (this.#exhausted(retried)) await this.#discard(retried, 'RetryAttemptsExhausted', false);
  }

  /** The whole batch failed: a function error (thrown, crashed, timed out) or a response naming no record. */
  async #failed(batch: ShardRecord[], functionError: boolean): Promise<void> {
    if (functionError && this.#o.settings.bisectOnFunctionError && batch.length > 1) {
      // Split in two, each half retried as its own batch; "splitting batches doesn't consume the retry quota".
      const first = Math.ceil(batch.length / 2);
      this.#bisected.splice(0, this.#bisected.length > 0 ? 1 : 0, first, batch.length - first);
      this.#o.stats.bisections++;
      return;
    }
    if (this.#exhausted(batch)) await this.#discard(batch, 'RetryAttemptsExhausted', functionError);
  }

  /** Counts a failed attempt at the records from `retried[0]`; true past MaximumRetryAttempts. */
  #exhausted(retried: readonly ShardRecord[]): boolean {
    const first = retried[0];
    return first !== undefined && this.#retries.fail(this.#o.shardId, first.sequenceNumber);
  }

  async #invoke(batch: readonly ShardRecord[]): Promise<InvocationOutcome> {
    const { stats } = this.#o;
    const event = streamEvent(batch);
    const requestId = randomUUID();
    const crashAfterWrites = this.#o.faults?.crashAfterWrites(batch.length);
    stats.invocations++;
    stats.deliveredRecords += batch.length;
    stats.redeliveredRecords += batch.filter((record) => record.sequence <= this.#highestDelivered).length;
    const last = batch.at(-1);
    if (last && last.sequence > this.#highestDelivered) this.#highestDelivered = last.sequence;
    const outcome = await this.#o.function.invoke({
      event,
      requestId,
      deadlineMs: Date.now() + this.#o.settings.functionTimeoutMs,
      ...(crashAfterWrites !== undefined ? { crashAfterWrites } : {}),
    });
    this.#o.onInvocation?.({
      requestId,
      shardId: this.#o.shardId,
      event,
      outcome,
      ...(crashAfterWrites !== undefined ? { crashAfterWrites } : {}),
    });
    return outcome;
  }

  /** Sends the records (the first kept ones) to the on-failure destination and checkpoints past them. */
  async #discard(
    records: readonly ShardRecord[],
    condition: StreamFailureCondition,
    functionError: boolean,
  ): Promise<void> {
    await this.#o.destination.send(
      buildStreamOnFailureRecord({
        condition,
        records,
        shardId: this.#o.shardId,
        streamArn: this.#o.streamArn,
        functionArn: this.#o.functionArn,
        approximateInvokeCount: this.#retries.attempts(this.#o.shardId),
        functionError,
        now: new Date(this.#o.now()),
      }),
    );
    this.#o.stats.destinationBatches++;
    this.#o.stats.destinationRecords += records.length;
    this.#checkpointPast(records.length);
  }

  /** Done with the first `count` kept records: the checkpoint moves past them (and past filtered ones after). */
  #checkpointPast(count: number): void {
    const done = this.#pending.splice(0, count);
    this.#checkpoint =
      this.#pending.length === 0 ? this.#lastRead : (done.at(-1)?.sequenceNumber ?? this.#checkpoint);
    const front = this.#bisected[0];
    if (front !== undefined) {
      if (front > count) this.#bisected[0] = front - count;
      else this.#bisected.shift();
    }
    if (this.#checkpoint !== undefined) {
      const at = BigInt(this.#checkpoint);
      this.#retries.settle(this.#o.shardId, (position) => BigInt(position) <= at);
    }
    this.#o.onProgress();
  }
}
