import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hrTimeOf, type SpanRecord } from '../../../../local/tracing/otlp-json.js';
import { appendSpans, readTraceFile } from '../../../../local/tracing/trace-file.js';
import { slowestRecordWaterfalls } from '../../../../local/tracing/waterfall.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'msk-inbox-waterfall-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const TRACE = 'a'.repeat(32);
const PRODUCER_TRACE = 'b'.repeat(32);

function span(
  fields: Partial<SpanRecord> & Pick<SpanRecord, 'spanId' | 'name'> & { from: number; to: number },
): SpanRecord {
  const { from, to, ...rest } = fields;
  return {
    traceId: TRACE,
    kind: 0,
    startTime: hrTimeOf(from),
    endTime: hrTimeOf(to),
    attributes: {},
    links: [],
    events: [],
    status: { code: 0 },
    ...rest,
  };
}

function recordSpan(spanId: string, offset: number, from: number, to: number, producer?: string): SpanRecord {
  return span({
    spanId,
    parentSpanId: 'batch0000000000a',
    name: 'process orders',
    kind: 4,
    from,
    to,
    attributes: {
      'kafka.offset': offset,
      'messaging.destination.name': 'orders',
      'messaging.destination.partition.id': '0',
      'msk_inbox.outcome': 'applied',
      'msk_inbox.outcome.status': 'processed',
    },
    links: producer
      ? [{ traceId: PRODUCER_TRACE, spanId: producer, attributes: { 'msk_inbox.link': 'producer' } }]
      : [],
  });
}

describe('the slowest records as waterfalls, from an OTLP/JSON file', () => {
  it('reads back what was written, and puts each record between its producer, invocation, batch and requests', () => {
    const path = join(directory, 'traces.jsonl');
    appendSpans(path, 'order-producer', 'order-producer', [
      {
        ...span({ spanId: 'producer00000001', name: 'publish orders', kind: 3, from: 900, to: 950 }),
        traceId: PRODUCER_TRACE,
      },
    ]);
    appendSpans(path, 'order-consumer', 'msk-inbox', [
      span({ spanId: 'invoke0000000000', name: 'order-consumer invoke', kind: 1, from: 1000, to: 1100 }),
      span({
        spanId: 'batch0000000000a',
        parentSpanId: 'invoke0000000000',
        name: 'process orders batch',
        from: 1001,
        to: 1099,
      }),
      recordSpan('record0000000001', 1, 1002, 1010, 'producer00000001'),
      // Starts while record 1's request is in flight: that request is one it ran beside.
      recordSpan('record0000000002', 2, 1005, 1090),
      span({
        spanId: 'request000000001',
        parentSpanId: 'record0000000001',
        name: 'DynamoDB.TransactWriteItems',
        kind: 2,
        from: 1003,
        to: 1009,
        attributes: { 'db.operation.batch.size': 3, 'msk_inbox.transaction.records': 1 },
      }),
      span({
        spanId: 'request000000002',
        parentSpanId: 'batch0000000000a',
        name: 'DynamoDB.TransactWriteItems',
        kind: 2,
        from: 1050,
        to: 1088,
        attributes: { 'db.operation.batch.size': 6, 'msk_inbox.transaction.records': 2 },
        links: [{ traceId: TRACE, spanId: 'record0000000002', attributes: { 'msk_inbox.link': 'record' } }],
        status: { code: 2, message: 'TransactionCanceledException' },
      }),
    ]);
    const spans = readTraceFile(path);
    expect(spans).toHaveLength(7);
    expect(spans.find((s) => s.spanId === 'record0000000001')).toMatchObject({
      kind: 5,
      startMs: 1002,
      endMs: 1010,
      service: 'order-consumer',
      attributes: { 'kafka.offset': 1 },
    });

    const [slowest, next] = slowestRecordWaterfalls(spans, 2);
    expect(slowest?.record).toBe('orders-0@2');
    expect(slowest?.rows.map((row) => `${row.role} ${row.name}`)).toEqual(
      [
        'invocation order-consumer invoke',
        'batch process orders batch',
        'record process orders',
        '1 request for other records',
        'shared-request DynamoDB.TransactWriteItems',
      ].map((text) => (text.startsWith('1 ') ? `partition-requests ${text}` : text)),
    );
    expect(slowest?.rows.at(-1)).toMatchObject({
      error: true,
      detail: '6 actions · 2 records · shared · TransactionCanceledException',
    });
    expect(slowest?.producedBeforeMs).toBeUndefined();

    expect(next?.record).toBe('orders-0@1');
    expect(next?.rows.map((row) => row.role)).toEqual([
      'producer',
      'invocation',
      'batch',
      'record',
      'request',
    ]);
    expect(next?.producedBeforeMs).toBe(50);
    expect(next).toMatchObject({ axisStartMs: 1000, axisEndMs: 1100, durationMs: 8 });
  });
});
