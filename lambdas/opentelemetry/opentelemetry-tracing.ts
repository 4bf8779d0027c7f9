/**
 * The consumer's spans through OpenTelemetry's API (docs/tracing.md): the SDK and exporter are the
 * function's (the ADOT layer's, or one the team registers), so spans go wherever the team's other spans go.
 * Where none is registered the API's tracer records nothing and the engine's work runs as it is.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  isSpanContextValid,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { DecodedPartition, DecodedRecord } from '../core/decode-event.js';
import type { RecordOutcome } from '../core/outcome.js';
import {
  type ConsumerTracer,
  type InvocationTrace,
  NO_TRACE,
  type TraceableClient,
  type TracedInvocation,
} from '../core/telemetry/consumer-tracer.js';
import { formatTraceparent, remoteTraceContextOf } from '../core/telemetry/trace-context.js';
import { inClientSpan, REQUEST_SCOPE, type RequestScope } from './client-spans.js';
import { instrumentDynamoDbClient } from './dynamodb-request-spans.js';
import { ATTR, dedupOutcomeOf, isErrorOutcome, LINK_ROLE } from './span-attributes.js';

/** The instrumentation scope the spans are recorded under. */
export const TRACER_NAME = 'msk-inbox';
/** A Kafka key longer than this is not copied onto the span (keys are for grouping, not payload). */
const MAX_KEY_BYTES = 256;
const KEY_TEXT = new TextDecoder('utf-8', { fatal: true });

/** How the consumer's spans are made. */
export interface OpenTelemetryTracingOptions {
  /** Where the spans are made. @default the global tracer provider (the ADOT layer registers one) */
  readonly tracerProvider?: TracerProvider;
  /**
   * A span per DynamoDB request, with its transaction size. Turn it off where the function's own
   * instrumentation of the AWS SDK already makes them (they then nest under the records' spans, too).
   * @default true
   */
  readonly dynamoDbRequestSpans?: boolean;
}

/** Spans for the consumer: pass as `createInboxConsumer({ ..., tracing: openTelemetryTracing() })`. */
export function openTelemetryTracing(options: OpenTelemetryTracingOptions = {}): ConsumerTracer {
  // Read at first use, not here: a provider registered after the handler's module loads still counts.
  let tracer: Tracer | undefined;
  const tracerOf = (): Tracer => {
    tracer ??= (options.tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME);
    return tracer;
  };
  return {
    startInvocation: (invocation) => {
      const spans = new InvocationSpans(tracerOf(), invocation);
      // Nothing records (no SDK registered, or the invocation not sampled): the records' spans would not
      // either, so the engine is told nothing more and pays nothing more.
      if (spans.recording) return spans;
      spans.end();
      return NO_TRACE;
    },
    instrumentDynamoDb: (client: TraceableClient) => {
      if (options.dynamoDbRequestSpans === false) return;
      instrumentDynamoDbClient(client, tracerOf);
    },
    traceStoreRequest: (request, work) =>
      inClientSpan(
        tracerOf(),
        `${request.system} ${request.operation}`,
        {
          [ATTR.dbSystem]: request.system,
          [ATTR.dbOperation]: request.operation,
          ...(request.records === undefined ? {} : { [ATTR.transactionRecords]: request.records }),
        },
        work,
      ),
  };
}

class InvocationSpans implements InvocationTrace {
  readonly #tracer: Tracer;
  readonly #invocation: TracedInvocation;
  readonly #span: Span;
  readonly #context: Context;
  /** Each partition's span, its context, and the messaging attributes its records share (built once). */
  readonly #partitions = new Map<string, { span: Span; context: Context; messaging: Attributes }>();
  readonly #records = new Map<DecodedRecord, Span>();
  #recordCount = 0;

  constructor(tracer: Tracer, invocation: TracedInvocation) {
    this.#tracer = tracer;
    this.#invocation = invocation;
    const parent = context.active();
    this.#span = tracer.startSpan(
      `${invocation.consumerName || TRACER_NAME} invoke`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR.faasTrigger]: 'pubsub',
          [ATTR.messagingSystem]: 'kafka',
          [ATTR.consumerName]: invocation.consumerName,
          ...optional(ATTR.faasInvocationId, invocation.requestId),
          ...optional(ATTR.cloudResourceId, invocation.functionArn),
          ...optional(ATTR.consumerGroup, invocation.consumerGroupId),
        },
      },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
  }

  get recording(): boolean {
    return this.#span.isRecording();
  }

  partitionStarted(partition: DecodedPartition): void {
    const first = partition.records[0];
    const topic = first?.topic ?? partition.partitionKey;
    this.#recordCount += partition.records.length;
    const messaging = this.#messaging(topic, first?.partition);
    const span = this.#tracer.startSpan(
      `process ${topic} batch`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { ...messaging, [ATTR.batchMessageCount]: partition.records.length },
      },
      this.#context,
    );
    this.#partitions.set(partition.partitionKey, {
      span,
      context: trace.setSpan(this.#context, span),
      messaging,
    });
  }

  partitionEnded(partition: DecodedPartition): void {
    this.#partitions.get(partition.partitionKey)?.span.end();
    this.#partitions.delete(partition.partitionKey);
  }

  recordStarted(record: DecodedRecord): void {
    if (this.#records.has(record)) return;
    this.#records.set(record, this.#startRecordSpan(record));
  }

  recordEnded(record: DecodedRecord, outcome: RecordOutcome): void {
    const span = this.#records.get(record) ?? this.#startRecordSpan(record);
    this.#records.delete(record);
    span.setAttributes({
      [ATTR.outcome]: dedupOutcomeOf(outcome.status),
      [ATTR.outcomeStatus]: outcome.status,
      ...optional(ATTR.outcomeReason, outcome.reason),
      ...optional(ATTR.dedupKey, outcome.dedupKey),
    });
    if (isErrorOutcome(outcome.status)) {
      const message = outcome.detail ?? outcome.reason ?? outcome.status;
      span.recordException({ name: outcome.reason ?? outcome.status, message });
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    span.end();
  }

  within<T>(records: readonly DecodedRecord[], work: () => Promise<T>): Promise<T> {
    const scope = this.#scopeOf(records);
    if (scope === undefined) return work();
    // The registered context manager carries it across the engine's awaits to the SDK's middleware, and
    // makes the team's own spans in the effect the record's children.
    return context.with(scope.parent.setValue(REQUEST_SCOPE, scope), work);
  }

  traceparentOf(record: DecodedRecord): string | undefined {
    const spanContext = this.#records.get(record)?.spanContext();
    if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
    return formatTraceparent(spanContext);
  }

  end(error?: unknown): void {
    this.#span.setAttribute(ATTR.batchMessageCount, this.#recordCount);
    if (error !== undefined) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#span.recordException(failure);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    }
    // A batch that failed as a whole leaves records and partitions open: each ends here, marked unfinished.
    for (const span of this.#records.values()) {
      span.setAttribute(ATTR.outcome, 'unfinished');
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: 'the batch failed before this record had an outcome',
      });
      span.end();
    }
    this.#records.clear();
    for (const { span } of this.#partitions.values()) span.end();
    this.#partitions.clear();
    this.#span.end();
  }

  /**
   * One record's requests are its span's children; a transaction of several records is its partition's
   * child, linked to each record's span (a span has one parent). Nothing is scoped when nothing records.
   */
  #scopeOf(records: readonly DecodedRecord[]): RequestScope | undefined {
    const spans = records.map((record) => this.#records.get(record));
    const first = records[0];
    if (first === undefined || !spans.some((span) => span?.isRecording())) return undefined;
    if (records.length === 1 && spans[0] !== undefined) {
      return { parent: trace.setSpan(this.#context, spans[0]), links: [], records: 1 };
    }
    const links: Link[] = spans.flatMap((span) =>
      span ? [{ context: span.spanContext(), attributes: { [ATTR.linkRole]: LINK_ROLE.record } }] : [],
    );
    const parent = this.#partitions.get(first.partitionKey)?.context ?? this.#context;
    return { parent, links, records: records.length };
  }

  #startRecordSpan(record: DecodedRecord): Span {
    const producer = remoteTraceContextOf(record.headers);
    const links: Link[] = producer
      ? [
          {
            context: {
              traceId: producer.traceId,
              spanId: producer.spanId,
              traceFlags: producer.traceFlags,
              isRemote: true,
              ...(producer.traceState ? { traceState: createTraceState(producer.traceState) } : {}),
            },
            attributes: { [ATTR.linkRole]: LINK_ROLE.producer },
          },
        ]
      : [];
    const partition = this.#partitions.get(record.partitionKey);
    return this.#tracer.startSpan(
      `process ${record.topic}`,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: {
          ...(partition?.messaging ?? this.#messaging(record.topic, record.partition)),
          ...optional(ATTR.kafkaOffset, record.offset),
          ...optional(ATTR.kafkaMessageKey, keyText(record.key)),
          [ATTR.bodySize]: record.value?.byteLength ?? 0,
        },
      },
      partition?.context ?? this.#context,
    );
  }

  #messaging(topic: string, partition: number | undefined): Attributes {
    return {
      [ATTR.messagingSystem]: 'kafka',
      [ATTR.messagingOperationType]: 'process',
      [ATTR.messagingOperationName]: 'process',
      [ATTR.destinationName]: topic,
      ...optional(ATTR.partitionId, partition === undefined ? undefined : String(partition)),
      ...optional(ATTR.consumerGroup, this.#invocation.consumerGroupId),
    };
  }
}

function optional<V extends string | number>(name: string, value: V | undefined): Record<string, V> {
  return value === undefined || value === '' ? {} : { [name]: value };
}

/** The key as text when it is short UTF-8 (the conventions: a null key is not set). */
function keyText(key: Buffer | null): string | undefined {
  if (key === null || key.byteLength > MAX_KEY_BYTES) return undefined;
  try {
    return KEY_TEXT.decode(key);
  } catch {
    return undefined;
  }
}
