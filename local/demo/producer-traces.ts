/**
 * The demo's producer as a traced one: each record that names its event carries a W3C `traceparent`, as an
 * instrumented Kafka producer's would, and the producer's span is written to the run's traces file beside
 * the function's, so the waterfall shows what each record's span links to (docs/tracing.md#locally). The
 * ids come from the event's id, so a producer's second copy of an event names the same span.
 */
import { createHash } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../lambdas/core/dedup-key.js';
import { formatTraceparent, TRACEPARENT_HEADER } from '../../lambdas/core/telemetry/trace-context.js';
import { ATTR } from '../../lambdas/opentelemetry/span-attributes.js';
import { hrTimeOf, type SpanRecord } from '../tracing/otlp-json.js';
import { appendSpans } from '../tracing/trace-file.js';
import type { WorkloadRecord } from './workload.js';

/** The service name the producer's spans carry. */
export const PRODUCER_SERVICE = 'order-producer';
const SAMPLED = 1;

interface ProducerSpan {
  readonly eventId: string;
  readonly traceId: string;
  readonly spanId: string;
}

export interface TracedWorkload {
  /** The records, each that names its event with a `traceparent` header added. */
  readonly records: readonly WorkloadRecord[];
  /** Writes one producer span per event, covering the produce call (startMs to endMs). */
  writeSpans(path: string, topic: string, startMs: number, endMs: number): void;
}

export function withProducerTraces(records: readonly WorkloadRecord[]): TracedWorkload {
  const spans = new Map<string, ProducerSpan>();
  const traced = records.map((record) => {
    const eventId = record.headers
      ?.find((header) => header.key === DEFAULT_DEDUP_KEY_POLICY.header)
      ?.value.toString();
    if (eventId === undefined) return record;
    const span = spans.get(eventId) ?? producerSpanOf(eventId);
    spans.set(eventId, span);
    const traceparent = formatTraceparent({
      traceId: span.traceId,
      spanId: span.spanId,
      traceFlags: SAMPLED,
    });
    return {
      ...record,
      headers: [...(record.headers ?? []), { key: TRACEPARENT_HEADER, value: Buffer.from(traceparent) }],
    };
  });
  return {
    records: traced,
    writeSpans(path, topic, startMs, endMs) {
      const records: SpanRecord[] = [...spans.values()].map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        name: `publish ${topic}`,
        kind: SpanKind.PRODUCER,
        startTime: hrTimeOf(startMs),
        endTime: hrTimeOf(endMs),
        attributes: {
          [ATTR.messagingSystem]: 'kafka',
          [ATTR.messagingOperationType]: 'send',
          [ATTR.destinationName]: topic,
          [ATTR.dedupKey]: span.eventId,
        },
        links: [],
        events: [],
        status: { code: 0 },
      }));
      // Lines of at most a few hundred spans: one write each.
      for (let from = 0; from < records.length; from += 500) {
        appendSpans(path, PRODUCER_SERVICE, PRODUCER_SERVICE, records.slice(from, from + 500));
      }
    },
  };
}

function producerSpanOf(eventId: string): ProducerSpan {
  const digest = createHash('sha256').update(eventId).digest('hex');
  return { eventId, traceId: digest.slice(0, 32), spanId: digest.slice(32, 48) };
}
