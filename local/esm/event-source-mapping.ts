/**
 * An emulator of Lambda's Kafka event source mapping (ESM): it polls a record source, builds MSK events
 * as Lambda does, invokes the function, and checkpoints from its response. The semantics it reproduces
 * are in docs/aws-facts.md; each contract line names its page.
 *
 * Model: `pollers` poll loops (provisioned pollers), each owning a share of the assigned partitions and
 * running one invocation at a time, so a partition is never in two invocations (except by injected fault).
 * After an invocation, each partition of its batch is settled: committed past its records, or committed
 * up to the record to redeliver and sought back to it; the next batch is polled from there.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { type Batch, collectBatch, firstOf, lastOf, toBatch } from './batch-collector.js';
import { checkpoints, interpretResponse } from './batch-response.js';
import { type EsmSettings, type ResolvedEsmSettings, resolveEsmSettings } from './esm-settings.js';
import { countFailedInvocation, type EsmStats, newEsmStats } from './esm-stats.js';
import { type FaultPlan, NO_FAULTS } from './fault-plan.js';
import { functionArn, type InvocationOutcome, type LambdaFunction } from './lambda-function.js';
import { buildMskEvent, type MskEvent, type MskEventEnvelope } from './msk-event.js';
import {
  buildOnFailureRecord,
  type FailureCondition,
  type OnFailureDestination,
} from './on-failure-destination.js';
import { type FilteredBatch, recordFilter } from './record-filter.js';
import type { RecordSource, SourceRecord, TopicPartition } from './record-source.js';
import { topicPartitionKey } from './record-source.js';
import { RetryCounter } from './retry-counter.js';
import { Wakeup } from './wakeup.js';

export interface EventSourceMappingOptions {
  readonly source: RecordSource;
  readonly function: LambdaFunction;
  readonly destination: OnFailureDestination;
  readonly settings?: EsmSettings;
  readonly faults?: FaultPlan;
  /** Epoch ms; record ages are measured with it. @default Date.now */
  readonly now?: () => number;
  /** Called after every invocation, for progress displays and tests. */
  readonly onInvocation?: (report: InvocationReport) => void;
}

export type { EsmStats } from './esm-stats.js';

export interface InvocationReport {
  readonly requestId: string;
  readonly event: MskEvent;
  readonly outcome: InvocationOutcome;
  /** Whether this was the fenced-off second invocation of an overlapping pair (its response is ignored). */
  readonly fenced: boolean;
  readonly crashAfterWrites?: number;
}

export class EventSourceMapping {
  readonly settings: ResolvedEsmSettings;
  readonly stats: EsmStats = newEsmStats();
  readonly #source: RecordSource;
  readonly #function: LambdaFunction;
  readonly #destination: OnFailureDestination;
  readonly #faults: FaultPlan;
  readonly #now: () => number;
  readonly #onInvocation: ((report: InvocationReport) => void) | undefined;
  readonly #filter: (batch: Batch) => FilteredBatch;
  readonly #envelope: MskEventEnvelope;
  readonly #functionArn: string;
  /** Per partition key, failed attempts at redelivering from one offset. */
  readonly #retries: RetryCounter<number>;
  /** Per partition key, the highest offset ever delivered: anything at or below it is a redelivery. */
  readonly #highestDelivered = new Map<string, number>();
  readonly #pollers: Promise<void>[] = [];
  /** Woken by every commit and by a failed poll loop: what `waitUntilCaughtUp` waits for. */
  readonly #committed = new Wakeup();
  #running = false;
  #failure: unknown;

  constructor(options: EventSourceMappingOptions) {
    this.settings = resolveEsmSettings(options.settings);
    this.#source = options.source;
    this.#function = options.function;
    this.#destination = options.destination;
    this.#faults = options.faults ?? NO_FAULTS;
    this.#now = options.now ?? Date.now;
    this.#onInvocation = options.onInvocation;
    this.#filter = recordFilter(this.settings.filters);
    this.#retries = new RetryCounter(this.settings.effectiveMaxRetryAttempts);
    this.#envelope = {
      eventSource: this.settings.eventSource,
      ...(this.settings.eventSource === 'aws:kafka' ? { eventSourceArn: this.settings.eventSourceArn } : {}),
      bootstrapServers: this.#source.bootstrapServers,
    };
    this.#functionArn = functionArn({ functionName: this.settings.functionName });
  }

  /** Starts the source and the poll loops; returns at once. */
  async start(): Promise<void> {
    if (this.#running) throw new Error('the mapping is already running');
    await this.#source.start();
    this.#running = true;
    for (let index = 0; index < this.settings.pollers; index++) {
      this.#pollers.push(
        this.#pollLoop(index).catch((error: unknown) => {
          this.#failure ??= error;
          this.#running = false;
          this.#committed.wake();
        }),
      );
    }
  }

  /**
   * Resolves once every partition is committed up to its log end (nothing left to deliver or redeliver);
   * rejects when a poll loop failed or `timeoutMs` passed. It reads the source's progress after each of this
   * mapping's commits (only a commit can close the lag), and every `recheckMs` for commits made elsewhere and
   * records appended later: a Kafka source answers each read with requests to the broker, so it is not polled
   * in a tight loop.
   */
  async waitUntilCaughtUp(timeoutMs: number, recheckMs = 250): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      // Registered before the read, so a commit made while it is in flight is not missed.
      const committed = this.#committed.next(Math.max(0, Math.min(recheckMs, deadline - Date.now())));
      try {
        const progress = await this.#source.progress();
        if (progress.every((partition) => partition.committedOffset >= partition.endOffset)) return;
        if (Date.now() > deadline) {
          const lag = progress
            .map((p) => `${topicPartitionKey(p)}: ${p.committedOffset}/${p.endOffset}`)
            .join(', ');
          throw new Error(`the mapping did not catch up within ${timeoutMs} ms (committed/end: ${lag})`);
        }
        await committed.promise;
      } finally {
        committed.cancel();
      }
    }
  }

  /** Stops polling after the invocations in flight settle, and closes the source. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#pollers);
    this.#pollers.length = 0;
    await this.#source.close();
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #pollLoop(index: number): Promise<void> {
    const faults = this.#faults.fork(index);
    let rotation = 0;
    /** Set after a function error with bisect on: the next batch carries at most this many records. */
    let bisectLimit: number | undefined;
    while (this.#running) {
      const owned = this.#ownedPartitions(index);
      const batch =
        owned.length === 0
          ? undefined
          : await collectBatch(this.#source, rotate(owned, rotation), {
              maxRecords: bisectLimit ?? this.settings.batchSize,
              batchingWindowMs: this.settings.batchingWindowMs,
              envelope: this.#envelope,
              running: () => this.#running,
              discardOversized: (record) => this.#giveUp([record], 'MaximumPayloadSizeExceeded', false),
            });
      if (!batch) {
        await sleep(Math.min(50, Math.max(5, this.settings.batchingWindowMs)));
        continue;
      }
      const settled = await this.#deliver(batch, faults);
      // An in-memory source and an in-process function that fails at once settle in microtasks: without a
      // turn of the event loop here, a batch retried for ever starves every timer (waitUntilCaughtUp's deadline).
      await setImmediate();
      if (settled === 'function-error' && this.settings.bisectOnFunctionError && batch.records.length > 1) {
        // BisectBatchOnFunctionError: split the batch in two and retry; the first half is polled again first.
        // https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
        bisectLimit = Math.ceil(batch.records.length / 2);
        this.stats.bisections++;
      } else if (settled !== 'function-error') {
        bisectLimit = undefined;
      }
      // A retried batch starts from the same partitions, so a bisected half is a prefix of the failed batch.
      if (settled === 'done') rotation++;
    }
  }

  #ownedPartitions(index: number): TopicPartition[] {
    const sorted = [...this.#source.assignments()].sort(
      (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
    );
    return sorted.filter((_, position) => position % this.settings.pollers === index);
  }

  /** Invokes the batch once and settles every partition in it; says how it ended. */
  async #deliver(fullBatch: Batch, faults: FaultPlan): Promise<'done' | 'retry' | 'function-error'> {
    const polled = await this.#dropAgedRecords(fullBatch);
    const { delivered: batch, filteredOut } = this.#filter(polled);
    this.stats.filteredOutRecords += filteredOut.length;
    if (batch.records.length === 0) {
      // Nothing matched: committed without an invocation.
      await this.#commitPast(polled, new Set());
      return 'done';
    }
    const event = buildMskEvent(this.#envelope, batch.records);
    const crashAfterWrites = faults.crashAfterWrites(batch.records.length);
    const overlapping = faults.overlappingBatch(batch.records);

    const primary = this.#invoke(event, crashAfterWrites, false);
    const fenced = overlapping
      ? this.#invoke(buildMskEvent(this.#envelope, overlapping), undefined, true)
      : undefined;
    const [outcome] = await Promise.all([primary, fenced]);
    if (overlapping) this.stats.overlappingInvocations++;

    if (outcome.kind !== 'returned') {
      countFailedInvocation(this.stats, outcome);
      // A function error retries the whole batch. https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
      await this.#redeliverWhole(batch, true);
      await this.#seekFilteredOnly(polled, batch);
      return 'function-error';
    }
    const verdict = interpretResponse(event, outcome.response);
    if (verdict.kind === 'invalid') {
      // An identifier not in the event (or any malformed response) retries the whole batch.
      this.stats.invalidResponses++;
      await this.#redeliverWhole(batch, false);
      await this.#seekFilteredOnly(polled, batch);
      return 'retry';
    }
    if (verdict.kind === 'success' && faults.duplicateDelivery()) {
      // Injected: the commit is lost, so the same records come again.
      this.stats.duplicateDeliveries++;
      for (const { topicPartition, records } of polled.partitions.values()) {
        await this.#source.seek(topicPartition, firstOf(records).offset);
      }
      return 'retry';
    }
    if (verdict.kind === 'partial') this.stats.partialFailures++;
    const exhausted: SourceRecord[] = [];
    const redelivered = new Set<string>();
    for (const { key, topicPartition, commitOffset, redeliver } of checkpoints(event, verdict)) {
      await this.#commit(topicPartition, commitOffset);
      if (!redeliver) continue;
      redelivered.add(key);
      const failed =
        batch.partitions.get(key)?.records.filter((record) => record.offset >= commitOffset) ?? [];
      this.stats.reportedRecords += failed.length;
      if (this.#countFailure(key, commitOffset)) exhausted.push(...failed);
      else await this.#source.seek(topicPartition, commitOffset);
    }
    if (exhausted.length > 0) await this.#giveUp(exhausted, 'RetryAttemptsExhausted', false);
    // Filtered-out records after a partition's last delivered one, or in a partition with none delivered.
    await this.#commitPast(polled, redelivered);
    return verdict.kind === 'success' ? 'done' : 'retry';
  }

  /** Commits every partition of the polled batch past its last record, except those being redelivered. */
  async #commitPast(polled: Batch, redelivered: ReadonlySet<string>): Promise<void> {
    for (const [key, { topicPartition, records }] of polled.partitions) {
      if (!redelivered.has(key)) await this.#commit(topicPartition, lastOf(records).offset + 1);
    }
  }

  /**
   * After a failure retried whole, partitions whose polled records were all filtered out are polled again
   * from their first record too: Lambda commits filtered records only after a successful invocation.
   */
  async #seekFilteredOnly(polled: Batch, delivered: Batch): Promise<void> {
    for (const [key, { topicPartition, records }] of polled.partitions) {
      if (!delivered.partitions.has(key)) await this.#source.seek(topicPartition, firstOf(records).offset);
    }
  }

  async #invoke(
    event: MskEvent,
    crashAfterWrites: number | undefined,
    fenced: boolean,
  ): Promise<InvocationOutcome> {
    const requestId = randomUUID();
    this.stats.invocations++;
    for (const [key, records] of Object.entries(event.records)) {
      const highest = this.#highestDelivered.get(key) ?? -1;
      this.stats.deliveredRecords += records.length;
      this.stats.redeliveredRecords += records.filter((record) => record.offset <= highest).length;
      this.#highestDelivered.set(key, Math.max(highest, ...records.map((record) => record.offset)));
    }
    const outcome = await this.#function.invoke({
      event,
      requestId,
      deadlineMs: Date.now() + this.settings.functionTimeoutMs,
      ...(crashAfterWrites !== undefined ? { crashAfterWrites } : {}),
    });
    this.#onInvocation?.({
      requestId,
      event,
      outcome,
      fenced,
      ...(crashAfterWrites !== undefined ? { crashAfterWrites } : {}),
    });
    return outcome;
  }

  /** Seeks every partition of the batch back to its first record, or gives up on those out of retries. */
  async #redeliverWhole(batch: Batch, functionError: boolean): Promise<void> {
    const bisecting = functionError && this.settings.bisectOnFunctionError && batch.records.length > 1;
    const exhausted: SourceRecord[] = [];
    for (const [key, { topicPartition, records }] of batch.partitions) {
      const first = firstOf(records).offset;
      // Assumed, as AWS documents for Kinesis: splitting a batch does not count against the retry attempts.
      if (!bisecting && this.#countFailure(key, first)) exhausted.push(...records);
      else await this.#source.seek(topicPartition, first);
    }
    if (exhausted.length > 0) await this.#giveUp(exhausted, 'RetryAttemptsExhausted', functionError);
  }

  /** Records one more failed attempt at redelivering `key` from `offset`; true when retries are exhausted. */
  #countFailure(key: string, offset: number): boolean {
    // MaximumRetryAttempts counts retries after the first attempt; -1 retries until the record ages out.
    return this.#retries.fail(key, offset);
  }

  /**
   * Removes from the front of each partition the records older than MaximumRecordAgeInSeconds, sends them to
   * the destination and commits past them. https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
   */
  async #dropAgedRecords(batch: Batch): Promise<Batch> {
    if (this.settings.maxRecordAgeMs === -1) return batch;
    const now = this.#now();
    const aged: SourceRecord[] = [];
    const live: SourceRecord[] = [];
    for (const { records } of batch.partitions.values()) {
      const firstLive = records.findIndex((record) => now - record.timestamp <= this.settings.maxRecordAgeMs);
      const cut = firstLive === -1 ? records.length : firstLive;
      aged.push(...records.slice(0, cut));
      live.push(...records.slice(cut));
    }
    if (aged.length === 0) return batch;
    await this.#giveUp(aged, 'RecordAgeExceeded', false);
    return toBatch(live);
  }

  /** Sends records to the on-failure destination (one S3 object) and commits past them. */
  async #giveUp(records: SourceRecord[], condition: FailureCondition, functionError: boolean): Promise<void> {
    const batch = toBatch(records);
    const event = buildMskEvent(this.#envelope, batch.records);
    const attempts = Math.max(0, ...[...batch.partitions.keys()].map((key) => this.#retries.attempts(key)));
    await this.#destination.send(
      buildOnFailureRecord({
        condition,
        event,
        requestId: randomUUID(),
        functionArn: this.#functionArn,
        approximateInvokeCount: condition === 'RetryAttemptsExhausted' ? attempts : 0,
        functionError,
        now: new Date(this.#now()),
      }),
    );
    this.stats.destinationBatches++;
    this.stats.destinationRecords += records.length;
    // The fetch position is already past these records: they were polled.
    for (const { topicPartition, records: partitionRecords } of batch.partitions.values()) {
      await this.#commit(topicPartition, lastOf(partitionRecords).offset + 1);
    }
  }

  async #commit(topicPartition: TopicPartition, nextOffset: number): Promise<void> {
    const key = topicPartitionKey(topicPartition);
    await this.#source.commit(topicPartition, nextOffset);
    this.#retries.settle(key, (offset) => nextOffset > offset);
    this.#committed.wake();
  }
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
