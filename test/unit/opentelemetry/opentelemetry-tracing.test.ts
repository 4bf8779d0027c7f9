import { context, DiagLogLevel, diag, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect, EffectWrite } from '../../../lambdas/core/effect.js';
import type { CommitMember, CommitResult } from '../../../lambdas/core/inbox-store.js';
import { createKafkaBatchHandler } from '../../../lambdas/core/kafka-batch-handler.js';
import { NO_TRACE } from '../../../lambdas/core/telemetry/consumer-tracer.js';
import { openTelemetryTracing } from '../../../lambdas/opentelemetry/index.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';

const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01`;

const silentDiag = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  // As an SDK registers one: the team's own spans inside an effect nest under the record's.
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
beforeEach(() => exporter.reset());

function withEventId(spec: RecordSpec, headers: Record<string, string>): RecordSpec {
  return { ...spec, headers: { ...spec.headers, ...headers } };
}

/** Answers every commit as committed and keeps what was sent: the memory store cannot judge the outbox's conditions. */
class SentWrites extends MemoryInboxStore {
  readonly sent: (readonly EffectWrite[])[] = [];
  override async commitGroup(members: readonly CommitMember[]): Promise<CommitResult[]> {
    this.sent.push(...members.map((member) => member.writes));
    return members.map(() => ({ kind: 'committed' }));
  }
}

async function run(specs: readonly RecordSpec[], effect?: Effect, traced = true) {
  const clock = new ManualClock();
  const store = new SentWrites(clock);
  const handler = createKafkaBatchHandler({
    ...processorOptions(store, clock, {
      ...(effect ? { effect } : {}),
      consumerName: 'order-consumer',
      outbox: { tableName: 'outbox', consumer: 'order-consumer' },
    }),
    telemetry: { batchProcessed: () => undefined },
    ...(traced ? { tracer: openTelemetryTracing({ tracerProvider: provider }) } : {}),
    consumerGroupId: 'orders-group',
  });
  const response = await handler(kafkaEvent(specs), lambdaContext(clock));
  return { response, store, spans: exporter.getFinishedSpans() };
}

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

function recordSpanAt(spans: readonly ReadableSpan[], offset: number): ReadableSpan {
  const found = named(spans, 'process orders').find((span) => span.attributes['kafka.offset'] === offset);
  if (!found) throw new Error(`no record span at offset ${offset}`);
  return found;
}

describe('openTelemetryTracing through the engine', () => {
  it("links a record's span to the producer's traceparent, under its partition's and the invocation's", async () => {
    const { spans } = await run([
      withEventId(orderRecord(7, { eventId: 'evt-1', orderId: 'order-1' }), {
        traceparent: TRACEPARENT,
        tracestate: 'vendor=abc',
      }),
    ]);
    const invocation = named(spans, 'order-consumer invoke')[0];
    const batch = named(spans, 'process orders batch')[0];
    const record = recordSpanAt(spans, 7);
    expect(invocation?.kind).toBe(SpanKind.SERVER);
    expect(invocation?.attributes).toMatchObject({
      'faas.trigger': 'pubsub',
      'faas.invocation_id': 'test-request',
      'messaging.consumer.group.name': 'orders-group',
      'messaging.batch.message_count': 1,
    });
    expect(batch?.parentSpanContext?.spanId).toBe(invocation?.spanContext().spanId);
    expect(record.parentSpanContext?.spanId).toBe(batch?.spanContext().spanId);
    expect(record.spanContext().traceId).toBe(invocation?.spanContext().traceId);
    expect(record.kind).toBe(SpanKind.CONSUMER);
    expect(record.links).toHaveLength(1);
    expect(record.links[0]?.context).toMatchObject({
      traceId: PRODUCER_TRACE,
      spanId: PRODUCER_SPAN,
      traceFlags: 1,
      isRemote: true,
    });
    expect(record.links[0]?.context.traceState?.get('vendor')).toBe('abc');
    expect(record.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.destination.partition.id': '0',
      'messaging.consumer.group.name': 'orders-group',
      'kafka.offset': 7,
      'kafka.message.key': 'order-1',
      'msk_inbox.outcome': 'applied',
      'msk_inbox.outcome.status': 'processed',
      'msk_inbox.dedup_key': 'evt-1',
    });
    expect(record.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('processes a record whose traceparent is malformed, its span without a link', async () => {
    const { response, spans } = await run([
      withEventId(orderRecord(1, { eventId: 'evt-1' }), { traceparent: '00-not-a-trace-01' }),
    ]);
    expect(response.batchItemFailures).toEqual([]);
    const record = recordSpanAt(spans, 1);
    expect(record.links).toEqual([]);
    expect(record.attributes['msk_inbox.outcome']).toBe('applied');
  });

  it("marks a failed record's span an error with the exception, and ends the records after it as reported", async () => {
    const effect: Effect = ({ dedupKey }) => {
      if (dedupKey === 'evt-2') throw new Error('the payment service is down');
      return { kind: 'transact', writes: [] };
    };
    const { spans } = await run(
      [
        orderRecord(1, { eventId: 'evt-1' }),
        orderRecord(2, { eventId: 'evt-2' }),
        orderRecord(3, { eventId: 'evt-3' }),
      ],
      effect,
    );
    const failed = recordSpanAt(spans, 2);
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes).toMatchObject({
      'msk_inbox.outcome': 'reported',
      'msk_inbox.outcome.status': 'failed',
    });
    expect(failed.events.map((event) => event.name)).toContain('exception');
    expect(recordSpanAt(spans, 3).attributes).toMatchObject({
      'msk_inbox.outcome': 'reported',
      'msk_inbox.outcome.status': 'blocked',
    });
    expect(recordSpanAt(spans, 1).attributes['msk_inbox.outcome']).toBe('applied');
    // Every record's span ends exactly once.
    expect(named(spans, 'process orders')).toHaveLength(3);
  });

  it('names a second copy of an event in the batch a duplicate', async () => {
    const { spans } = await run([orderRecord(1, { eventId: 'evt-1' }), orderRecord(2, { eventId: 'evt-1' })]);
    expect(recordSpanAt(spans, 2).attributes['msk_inbox.outcome']).toBe('duplicate');
  });

  it("nests the team's own spans made in the effect under the record's span", async () => {
    const effect: Effect = () => {
      trace.getTracer('team', undefined).startSpan('charge card').end();
      return { kind: 'transact', writes: [] };
    };
    // The team's tracer comes from the global provider, as in a function with the ADOT layer.
    trace.setGlobalTracerProvider(provider);
    try {
      const { spans } = await run([orderRecord(4, { eventId: 'evt-4' })], effect);
      const charge = named(spans, 'charge card')[0];
      expect(charge?.parentSpanContext?.spanId).toBe(recordSpanAt(spans, 4).spanContext().spanId);
    } finally {
      trace.disable();
    }
  });

  it("gives emitted events the record span's traceparent, and keeps one the effect set", async () => {
    const effect: Effect = ({ dedupKey }) => ({
      kind: 'transact',
      writes: [],
      emit: [
        { topic: 'payments', key: dedupKey, value: '{}' },
        { topic: 'audit', key: dedupKey, value: '{}', headers: { traceparent: TRACEPARENT } },
      ],
    });
    const { store, spans } = await run([orderRecord(5, { eventId: 'evt-5' })], effect);
    const record = recordSpanAt(spans, 5).spanContext();
    const written = JSON.stringify(store.sent);
    expect(written).toContain(`00-${record.traceId}-${record.spanId}-01`);
    expect(written).toContain(TRACEPARENT);
  });

  it('tells the engine nothing more when nothing records: no SDK registered, or the invocation not sampled', () => {
    const invocation = {
      requestId: 'r',
      functionArn: undefined,
      consumerName: 'c',
      consumerGroupId: undefined,
    };
    // No provider registered globally: the API's tracer records nothing.
    expect(openTelemetryTracing().startInvocation(invocation)).toBe(NO_TRACE);
    const neverSampled = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    expect(openTelemetryTracing({ tracerProvider: neverSampled }).startInvocation(invocation)).toBe(NO_TRACE);
    expect(openTelemetryTracing({ tracerProvider: provider }).startInvocation(invocation)).not.toBe(NO_TRACE);
  });

  it('loses only spans when the span processor throws: every record keeps its outcome', async () => {
    const throwing = new BasicTracerProvider({
      spanProcessors: [
        {
          onStart: () => {
            throw new Error('processor down');
          },
          onEnd: () => {
            throw new Error('processor down');
          },
          forceFlush: async () => undefined,
          shutdown: async () => undefined,
        },
      ],
    });
    const clock = new ManualClock();
    const store = new SentWrites(clock);
    const handler = createKafkaBatchHandler({
      ...processorOptions(store, clock, { consumerName: 'order-consumer' }),
      telemetry: { batchProcessed: () => undefined },
      tracer: openTelemetryTracing({ tracerProvider: throwing }),
    });
    const response = await handler(
      kafkaEvent([orderRecord(1, { eventId: 'evt-1' }), orderRecord(2, { eventId: 'evt-2' })]),
      lambdaContext(clock),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(store.sent).toHaveLength(2);
  });

  it('ends each partition span once, and a batch that fails as a whole ends its open records as unfinished', () => {
    const errors: string[] = [];
    diag.setLogger({ ...silentDiag, error: (message: string) => errors.push(message) }, DiagLogLevel.ERROR);
    try {
      const trace = openTelemetryTracing({ tracerProvider: provider }).startInvocation({
        requestId: 'r',
        functionArn: undefined,
        consumerName: 'order-consumer',
        consumerGroupId: undefined,
      });
      const [partition] = decodeEvent(kafkaEvent([orderRecord(3, { eventId: 'evt-3' })]));
      if (!partition) throw new Error('no partition');
      trace.partitionStarted(partition);
      trace.recordStarted(partition.records[0] as never);
      trace.partitionEnded(partition);
      trace.end(new Error('a lane answered no outcome'));
      const spans = exporter.getFinishedSpans();
      expect(errors).toEqual([]);
      expect(named(spans, 'process orders batch')).toHaveLength(1);
      expect(recordSpanAt(spans, 3).attributes['msk_inbox.outcome']).toBe('unfinished');
      expect(recordSpanAt(spans, 3).status.code).toBe(SpanStatusCode.ERROR);
      expect(named(spans, 'order-consumer invoke')[0]?.status.message).toBe('a lane answered no outcome');
    } finally {
      diag.disable();
    }
  });

  it('copies a key onto the span only when it is UTF-8 of at most 256 bytes', async () => {
    const { spans } = await run([
      { ...orderRecord(8, { eventId: 'evt-8' }), key: 'k'.repeat(256) },
      { ...orderRecord(9, { eventId: 'evt-9' }), key: 'k'.repeat(257) },
      { ...orderRecord(10, { eventId: 'evt-10' }), key: null },
    ]);
    expect(recordSpanAt(spans, 8).attributes['kafka.message.key']).toBe('k'.repeat(256));
    expect(recordSpanAt(spans, 9).attributes['kafka.message.key']).toBeUndefined();
    expect(recordSpanAt(spans, 10).attributes['kafka.message.key']).toBeUndefined();
  });

  it('adds its request middleware to a DynamoDB client unless told the function instruments the SDK itself', () => {
    const added: string[] = [];
    const client = {
      middlewareStack: { add: (_: never, options: { name: string }) => void added.push(options.name) },
    };
    openTelemetryTracing({ tracerProvider: provider }).instrumentDynamoDb?.(client);
    expect(added).toEqual(['mskInboxRequestSpans']);
    openTelemetryTracing({ tracerProvider: provider, dynamoDbRequestSpans: false }).instrumentDynamoDb?.(
      client,
    );
    expect(added).toEqual(['mskInboxRequestSpans']);
  });

  it('records nothing and adds no header with tracing off', async () => {
    const effect: Effect = ({ dedupKey }) => ({
      kind: 'transact',
      writes: [],
      emit: [{ topic: 'payments', key: dedupKey, value: '{}' }],
    });
    const { store, spans } = await run([orderRecord(6, { eventId: 'evt-6' })], effect, false);
    expect(spans).toEqual([]);
    expect(JSON.stringify(store.sent)).toContain('payments');
    expect(JSON.stringify(store.sent)).not.toContain('traceparent');
  });
});
