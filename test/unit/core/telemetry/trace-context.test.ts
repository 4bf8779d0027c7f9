/**
 * The producer's trace context read from a record's headers by W3C Trace Context's rules
 * (docs/tracing.md#w3c-trace-context): what holds to the format is read, anything else counts as absent.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaHeader } from '../../../../lambdas/core/decode-event.js';
import {
  formatTraceparent,
  parseTraceparent,
  remoteTraceContextOf,
} from '../../../../lambdas/core/telemetry/trace-context.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const PARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

const header = (name: string, value: string | Buffer): KafkaHeader => ({
  name,
  value: typeof value === 'string' ? Buffer.from(value, 'latin1') : value,
});

describe('a traceparent', () => {
  it('gives the trace id, the producer span id and the flags', () => {
    expect(parseTraceparent(PARENT)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`)?.traceFlags).toBe(0);
  });

  it.each([
    ['uppercase hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['a field that is not hex', `00-${TRACE_ID}-${SPAN_ID.replace('a', 'g')}-01`],
    ['version 00 with more fields', `${PARENT}-extra`],
    ['version 00 cut short', PARENT.slice(0, -1)],
    ['a later version whose next character is not a dash', `01-${TRACE_ID}-${SPAN_ID}-01x`],
    ['nothing', ''],
  ])('is refused with %s', (_, text) => {
    expect(parseTraceparent(text)).toBeUndefined();
  });

  it("of a later version is read by version 00's fields, what follows ignored", () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01-what-the-future-adds`)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
    });
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01`)?.traceId).toBe(TRACE_ID);
  });

  it('is written onward as version 00, the flags as two hex digits', () => {
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 })).toBe(PARENT);
    const written = formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 });
    expect(parseTraceparent(written)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 });
  });
});

describe("a record's trace context", () => {
  it('comes from its traceparent header, with the tracestate beside it', () => {
    expect(
      remoteTraceContextOf([
        header('event_id', 'e-1'),
        header('traceparent', PARENT),
        header('tracestate', 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE'),
      ]),
    ).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      traceState: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    });
  });

  it('is absent without a traceparent, whatever tracestate says', () => {
    expect(remoteTraceContextOf([header('tracestate', 'rojo=00f067aa0ba902b7')])).toBeUndefined();
    expect(remoteTraceContextOf([])).toBeUndefined();
  });

  it('is absent with two traceparents: either could be the producer', () => {
    const other = `00-${'1'.repeat(32)}-${SPAN_ID}-01`;
    expect(
      remoteTraceContextOf([header('traceparent', PARENT), header('traceparent', other)]),
    ).toBeUndefined();
  });

  it('is absent when the traceparent bytes are not ASCII text', () => {
    const bytes = Buffer.concat([Buffer.from(PARENT.slice(0, -1)), Buffer.from([0xc3])]);
    expect(remoteTraceContextOf([header('traceparent', bytes)])).toBeUndefined();
  });

  it('joins repeated tracestate headers into one list, as HTTP joins repeated fields', () => {
    const context = remoteTraceContextOf([
      header('traceparent', PARENT),
      header('tracestate', 'rojo=1 '),
      header('tracestate', ' congo=2'),
    ]);
    expect(context?.traceState).toBe('rojo=1,congo=2');
  });

  it('keeps the traceparent but drops a tracestate that is not printable ASCII or runs past 512 characters', () => {
    const withBadState = remoteTraceContextOf([
      header('traceparent', PARENT),
      header('tracestate', Buffer.from([0x72, 0x3d, 0x07])),
    ]);
    expect(withBadState).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
    const long = Array.from({ length: 60 }, (_, index) => `k${index}=value`).join(',');
    expect(long.length).toBeGreaterThan(512);
    const withLongState = remoteTraceContextOf([header('traceparent', PARENT), header('tracestate', long)]);
    expect(withLongState).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
  });
});
