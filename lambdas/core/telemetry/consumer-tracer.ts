/**
 * What the engine tells a tracer as a batch runs (docs/tracing.md). The engine knows no tracing library:
 * `openTelemetryTracing()` from `msk-inbox/opentelemetry` is the implementation a team passes as the
 * `tracing` option, so a consumer without it bundles no OpenTelemetry code and pays a few empty calls per
 * record (NO_TRACE).
 */
import type { DecodedPartition, DecodedRecord } from '../decode-event.js';
import type { RecordOutcome } from '../outcome.js';

/** The invocation a trace starts for. */
export interface TracedInvocation {
  /** Lambda's request id. */
  readonly requestId: string | undefined;
  /** The function's ARN, as Lambda passed it. */
  readonly functionArn: string | undefined;
  /** The consumer's name (CONSUMER_NAME). */
  readonly consumerName: string;
  /** The event source mapping's consumer group (KAFKA_CONSUMER_GROUP_ID), when the deployment says it. */
  readonly consumerGroupId: string | undefined;
}

/** A middleware stack as the AWS SDK's clients have one (only what a tracer adds to it). */
export interface TraceableClient {
  readonly middlewareStack: {
    add(middleware: never, options: { step: 'initialize'; name: string; override?: boolean }): void;
  };
}

/** A store's request to a database other than DynamoDB (a Postgres transaction), as its span names it. */
export interface StoreRequest {
  /** OpenTelemetry's `db.system.name`, such as `postgresql`. */
  readonly system: string;
  /** The store's operation: `commit`, `claim`, `quarantine`, ... */
  readonly operation: string;
  /** Records the request carries, when it is a transaction of them. */
  readonly records?: number;
}

/** Runs a store's request as a span of the records whose work it is (InvocationTrace#within). */
export type StoreRequestTracer = <T>(request: StoreRequest, work: () => Promise<T>) => Promise<T>;

export interface ConsumerTracer {
  /** Called at the start of each batch; the trace ends with `end`. */
  startInvocation(invocation: TracedInvocation): InvocationTrace;
  /** Adds a span per request to a DynamoDB client the consumer uses. */
  instrumentDynamoDb?(client: TraceableClient): void;
  /** A span per request of a store that keeps its inbox elsewhere (StoreContext#traceRequest). */
  readonly traceStoreRequest?: StoreRequestTracer;
}

/**
 * One invocation's spans. Records are told apart by identity: the engine passes the DecodedRecord objects
 * it decoded, each ended exactly once; a record offered again after a lane stopped before it is started
 * again, and that second start is to be ignored.
 */
export interface InvocationTrace {
  partitionStarted(partition: DecodedPartition): void;
  partitionEnded(partition: DecodedPartition): void;
  recordStarted(record: DecodedRecord): void;
  /** A record's outcome; a record never started (blocked, deferred) is ended here alone. */
  recordEnded(record: DecodedRecord, outcome: RecordOutcome): void;
  /**
   * Runs `work` as the work of these records: the store requests it makes become their spans' children
   * (one record), or the partition's children linked to each record (a transaction of several).
   */
  within<T>(records: readonly DecodedRecord[], work: () => Promise<T>): Promise<T>;
  /** The record's own span as a W3C traceparent, for the events it emits (undefined when not traced). */
  traceparentOf(record: DecodedRecord): string | undefined;
  /** The batch's end; `error` when it failed as a whole. */
  end(error?: unknown): void;
}

/** Tracing off: nothing recorded, the work run as it is. */
export const NO_TRACE: InvocationTrace = {
  partitionStarted: () => undefined,
  partitionEnded: () => undefined,
  recordStarted: () => undefined,
  recordEnded: () => undefined,
  within: (_records, work) => work(),
  traceparentOf: () => undefined,
  end: () => undefined,
};

/**
 * The tracer's invocation as the engine uses it (kafka-batch-handler.ts): a tracer, or a span processor
 * behind it, that throws loses its spans, never a record's outcome; `within` runs the work once whatever
 * the tracer does.
 */
export function startGuarded(tracer: ConsumerTracer, invocation: TracedInvocation): InvocationTrace {
  let trace: InvocationTrace;
  try {
    trace = tracer.startInvocation(invocation);
  } catch {
    return NO_TRACE;
  }
  if (trace === NO_TRACE) return NO_TRACE;
  const started = trace;
  return {
    partitionStarted: (partition) => quietly(() => started.partitionStarted(partition)),
    partitionEnded: (partition) => quietly(() => started.partitionEnded(partition)),
    recordStarted: (record) => quietly(() => started.recordStarted(record)),
    recordEnded: (record, outcome) => quietly(() => started.recordEnded(record, outcome)),
    within: (records, work) => {
      let running: ReturnType<typeof work> | undefined;
      const once = () => {
        running ??= work();
        return running;
      };
      try {
        return started.within(records, once);
      } catch {
        return once();
      }
    },
    traceparentOf: (record) => {
      try {
        return started.traceparentOf(record);
      } catch {
        return undefined;
      }
    },
    end: (error) => quietly(() => started.end(error)),
  };
}

function quietly(call: () => void): void {
  try {
    call();
  } catch {
    // The tracer's fault: its span is lost, the batch goes on.
  }
}
