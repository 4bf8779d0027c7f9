/**
 * The emulator's counterparts of the metrics Lambda publishes for a Kafka event source mapping and its
 * function (namespace AWS/Lambda), under the names the dashboard uses (lib/monitoring/consumer-metrics.ts),
 * recorded as timed samples where the mapping reaches its ports: the record source (polled, committed,
 * offset lag), the function (invocations, their records, errors, duration, concurrency) and the on-failure
 * destination. Wrapping the ports leaves event-source-mapping.ts as it is. The local dashboard
 * (local/dashboard/) aggregates the samples per second, as CloudWatch would per period.
 * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
 *
 * What the emulator cannot produce is not recorded, so the dashboard says it has no local counterpart:
 * the ESM's error counts (a polling, invoke, destination or commit error stops the emulator's run instead)
 * and Lambda's throttles.
 */
import type { ESM_EVENT_COUNT_METRICS, ESM_KAFKA_METRICS } from '../../lib/monitoring/consumer-metrics.js';
import type { Sample } from '../dashboard/statistics.js';
import type { InvocationRequest, LambdaFunction } from './lambda-function.js';
import type { OnFailureDestination } from './on-failure-destination.js';
import { type PartitionProgress, type RecordSource, topicPartitionKey } from './record-source.js';

/** Every metric recorded here, by the name the dashboard draws it under. */
export const RECORDED_MAPPING_METRICS = [
  ...([
    'PolledEventCount',
    'FilteredOutEventCount',
    'InvokedEventCount',
    'FailedInvokeEventCount',
    // Recorded as 0 whenever progress is read: records given up on go to the on-failure destination, which
    // the emulator always has, so it never drops one (Lambda counts a record dropped when there is none).
    'DroppedEventCount',
    'OnFailureDestinationDeliveredEventCount',
    'CommittedEventCount',
  ] as const satisfies readonly (typeof ESM_EVENT_COUNT_METRICS)[number][]),
  ...(['MaxOffsetLag', 'SumOffsetLag'] as const satisfies readonly (typeof ESM_KAFKA_METRICS)[number][]),
  // The function's own metrics: the emulator is what invokes it.
  'OffsetLag',
  'Invocations',
  'Errors',
  'Duration',
  'ConcurrentExecutions',
] as const;

export type RecordedMappingMetric = (typeof RECORDED_MAPPING_METRICS)[number];

export class MappingMetrics {
  readonly #samples = new Map<RecordedMappingMetric, Sample[]>();
  readonly #now: () => number;
  /** Per partition key, where committed records are counted from: the first polled, then the last commit. */
  readonly #countedFrom = new Map<string, number>();
  #inFlight = 0;
  /** Counters the mapping keeps itself (its filter's), sampled as deltas whenever progress is read. */
  readonly #counters: { name: RecordedMappingMetric; read: () => number; last: number }[] = [];

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The samples of a metric; undefined when the emulator has no counterpart of it. */
  samples(name: string): readonly Sample[] | undefined {
    if (!(RECORDED_MAPPING_METRICS as readonly string[]).includes(name)) return undefined;
    return this.#samples.get(name as RecordedMappingMetric) ?? [];
  }

  /**
   * A count the mapping keeps in its stats (records its filters kept from the function), recorded as its
   * growth (0 included) whenever the mapping reads progress, after each of its commits.
   */
  countFrom(name: RecordedMappingMetric, read: () => number): void {
    this.#counters.push({ name, read, last: read() });
  }

  /** The source, counting polled and committed records and sampling the lag whenever progress is read. */
  source(inner: RecordSource): RecordSource {
    return {
      describe: () => inner.describe(),
      bootstrapServers: inner.bootstrapServers,
      start: () => inner.start(),
      assignments: () => inner.assignments(),
      poll: async (topicPartition, options) => {
        const records = await inner.poll(topicPartition, options);
        const first = records[0];
        if (first) {
          this.#record('PolledEventCount', records.length);
          const key = topicPartitionKey(first);
          if (!this.#countedFrom.has(key)) this.#countedFrom.set(key, first.offset);
        }
        return records;
      },
      seek: (topicPartition, offset) => inner.seek(topicPartition, offset),
      commit: async (topicPartition, nextOffset) => {
        await inner.commit(topicPartition, nextOffset);
        const key = topicPartitionKey(topicPartition);
        const from = this.#countedFrom.get(key) ?? nextOffset;
        if (nextOffset > from) this.#record('CommittedEventCount', nextOffset - from);
        this.#countedFrom.set(key, Math.max(from, nextOffset));
      },
      progress: async () => {
        const progress = await inner.progress();
        this.#offsetLag(progress);
        // A count that did not grow is a 0, not a missing datapoint: the mapping counted and found none.
        for (const counter of this.#counters) {
          const value = counter.read();
          this.#record(counter.name, Math.max(0, value - counter.last));
          counter.last = value;
        }
        this.#record('DroppedEventCount', 0);
        return progress;
      },
      close: () => inner.close(),
    };
  }

  /** The function, counting invocations, the records they carry, errors, duration and concurrency. */
  function(inner: LambdaFunction): LambdaFunction {
    return {
      describe: () => inner.describe(),
      invoke: async (request: InvocationRequest) => {
        const records = Object.values(request.event.records).flat().length;
        const started = this.#now();
        this.#inFlight++;
        this.#record('Invocations', 1);
        this.#record('InvokedEventCount', records);
        this.#record('ConcurrentExecutions', this.#inFlight);
        try {
          const outcome = await inner.invoke(request);
          // A crash or a timeout is an invocation error too, as Lambda counts them.
          const failed = outcome.kind !== 'returned';
          this.#record('Errors', failed ? 1 : 0);
          if (failed) this.#record('FailedInvokeEventCount', records);
          return outcome;
        } finally {
          this.#inFlight--;
          this.#record('Duration', this.#now() - started);
        }
      },
      close: () => inner.close(),
    };
  }

  destination(inner: OnFailureDestination): OnFailureDestination {
    return {
      describe: () => inner.describe(),
      send: async (record) => {
        await inner.send(record);
        this.#record('OnFailureDestinationDeliveredEventCount', record.KafkaBatchInfo.batchSize);
      },
      list: () => inner.list(),
    };
  }

  #record(name: RecordedMappingMetric, value: number): void {
    const samples = this.#samples.get(name) ?? [];
    samples.push({ timeMs: this.#now(), value });
    this.#samples.set(name, samples);
  }

  /**
   * Records behind each partition's end. OffsetLag is taken as the topic's (the sum over partitions): AWS
   * describes it as the difference between the last record written and the last the mapping processed.
   */
  #offsetLag(progress: readonly PartitionProgress[]): void {
    const lags = progress.map((p) => Math.max(0, p.endOffset - p.committedOffset));
    const sum = lags.reduce((total, lag) => total + lag, 0);
    this.#record('OffsetLag', sum);
    this.#record('SumOffsetLag', sum);
    this.#record('MaxOffsetLag', Math.max(0, ...lags));
  }
}
