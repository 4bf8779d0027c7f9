/**
 * One measurement of the consumer's CPU per record, in a process of its own (`node --import tsx` this file
 * VARIANT): the sample order consumer as createInboxConsumer builds it, its DynamoDB client answered at once
 * by a request handler in this process (no network, no DynamoDB: what is left is the engine, the schema, the
 * SDK's serialization and, with tracing, the spans). Prints one JSON line: TracingSample.
 *
 * Variants (bench/tracing/run-tracing-bench.ts): `off`, no tracing option; `api`, openTelemetryTracing()
 * with no SDK registered (the option on, no ADOT layer); `sdk`, an SDK registered as the ADOT layer's is (a
 * context manager, a batch processor, spans encoded as OTLP/JSON and flushed at the end of each invocation).
 */
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { createInboxConsumer } from '../../lambdas/core/index.js';
import { formatTraceparent } from '../../lambdas/core/telemetry/trace-context.js';
import { openTelemetryTracing } from '../../lambdas/opentelemetry/index.js';
import { spanRecordOf, toOtlpRequest } from '../../local/tracing/otlp-json.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import { kafkaEvent, orderRecord } from '../../test/support/kafka-events.js';
import { TRACING_VARIANTS, type TracingSample, type TracingVariant } from './tracing-variants.js';

const PARTITIONS = 4;
const RECORDS_PER_BATCH = 100;
const ACCOUNTS = 50;
const WARMUP_BATCHES = 10;
const MEASURED_BATCHES = Number(process.env.TRACING_BENCH_BATCHES ?? 40);

const silentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const silentMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** Answers every request as DynamoDB answers a committed TransactWriteItems: `{}`, at once. */
const answeringHandler = {
  handle: async () => ({
    response: {
      statusCode: 200,
      reason: 'OK',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'bench' },
      body: Readable.from([Buffer.from('{}')]),
    },
  }),
};

async function main(variant: TracingVariant): Promise<TracingSample> {
  let exported = 0;
  let provider: BasicTracerProvider | undefined;
  if (variant === 'sdk') {
    // What the layer's wrapper registers before the handler loads.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const exporter: SpanExporter = {
      export(spans: ReadableSpan[], done) {
        exported += spans.length;
        // The exporter's own work, short of the network: the spans encoded as OTLP/JSON.
        JSON.stringify(toOtlpRequest('order-consumer', 'msk-inbox', spans.map(spanRecordOf)));
        done({ code: 0 });
      },
      shutdown: async () => undefined,
    };
    provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
  }
  const handler = createInboxConsumer({
    ...orderConsumer('app'),
    dynamoDb: new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://dynamodb.bench',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
      requestHandler: answeringHandler as never,
    }),
    settings: { inboxTableName: 'inbox', consumerName: 'bench' },
    logger: silentLogger,
    metrics: silentMetrics,
    ...(variant === 'off' ? {} : { tracing: openTelemetryTracing() }),
  });
  const lambdaContext = {
    awsRequestId: 'bench',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench',
    getRemainingTimeInMillis: () => 900_000,
  } as never;
  let batch = 0;
  const invoke = async () => {
    const response = await handler(eventOf(batch++), lambdaContext);
    if (response.batchItemFailures.length > 0) throw new Error('the bench batch reported records');
    // As the layer does at the end of each invocation: the spans leave before Lambda freezes the process.
    await provider?.forceFlush();
  };
  for (let i = 0; i < WARMUP_BATCHES; i++) await invoke();
  exported = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < MEASURED_BATCHES; i++) await invoke();
  const cpu = process.cpuUsage(before);
  const records = MEASURED_BATCHES * RECORDS_PER_BATCH;
  return { variant, records, cpuMicrosPerRecord: (cpu.user + cpu.system) / records, spans: exported };
}

/** A batch of new orders over four partitions, each record with a producer's traceparent. */
function eventOf(batch: number) {
  const offsets = new Array<number>(PARTITIONS).fill(batch * (RECORDS_PER_BATCH / PARTITIONS));
  const specs = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => {
    const partition = i % PARTITIONS;
    const n = batch * RECORDS_PER_BATCH + i;
    const offset = offsets[partition] ?? 0;
    offsets[partition] = offset + 1;
    const spec = orderRecord(
      offset,
      { eventId: `bench-${n}`, orderId: `order-${n}`, accountId: `acct-${n % ACCOUNTS}` },
      partition,
    );
    const traceparent = formatTraceparent({
      traceId: n.toString(16).padStart(32, '0'),
      spanId: (n + 1).toString(16).padStart(16, '0'),
      traceFlags: 1,
    });
    return { ...spec, headers: { ...spec.headers, traceparent } };
  });
  return kafkaEvent(specs);
}

const variant = process.argv[2] as TracingVariant;
if (!TRACING_VARIANTS.includes(variant))
  throw new Error(`variant must be one of ${TRACING_VARIANTS.join(', ')}`);
console.log(JSON.stringify(await main(variant)));
