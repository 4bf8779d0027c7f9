/**
 * Spans as OTLP/JSON, the encoding of OpenTelemetry's file exporter (one ExportTraceServiceRequest per
 * line: opentelemetry.io/docs/specs/otel/protocol/file-exporter/), and back: what the local runtime writes
 * in place of the ADOT layer's exporter, and what the tests and the dashboard read.
 */
import type { Attributes, AttributeValue, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

type AnyValue =
  | { readonly stringValue: string }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean }
  | { readonly arrayValue: { readonly values: readonly AnyValue[] } };

interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP's SpanKind: the API's plus one (0 is UNSPECIFIED). */
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly KeyValue[];
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly traceState?: string;
    readonly attributes: readonly KeyValue[];
  }[];
  readonly events: readonly {
    readonly name: string;
    readonly timeUnixNano: string;
    readonly attributes: readonly KeyValue[];
  }[];
  readonly status: { readonly code: number; readonly message?: string };
}

export interface OtlpTraceRequest {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly KeyValue[] };
    readonly scopeSpans: readonly {
      readonly scope: { readonly name: string };
      readonly spans: readonly OtlpSpan[];
    }[];
  }[];
}

/** OTLP's span kinds: the API's plus one (0 is UNSPECIFIED). */
export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** One span as the tests and the dashboard read it back: ids in hex, times in ms, attributes as values. */
export interface TracedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP's kind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly attributes: Readonly<Record<string, unknown>>;
  }[];
  readonly events: readonly {
    readonly name: string;
    readonly attributes: Readonly<Record<string, unknown>>;
  }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly statusMessage: string | undefined;
  readonly service: string | undefined;
}

/** A span as plain fields: what the SDK ended, or what the demo's producer stands in for. */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** The API's SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  readonly kind: number;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly attributes: Attributes;
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly traceState?: string;
    readonly attributes?: Attributes;
  }[];
  readonly events: readonly {
    readonly name: string;
    readonly time: HrTime;
    readonly attributes?: Attributes;
  }[];
  readonly status: { readonly code: number; readonly message?: string };
}

/** One request per resource (service) and scope, as an exporter sends them. */
export function toOtlpRequest(
  service: string,
  scope: string,
  spans: readonly SpanRecord[],
): OtlpTraceRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': service }) },
        scopeSpans: [{ scope: { name: scope }, spans: spans.map(otlpSpan) }],
      },
    ],
  };
}

/** What the SDK ended, as plain fields. */
export function spanRecordOf(span: ReadableSpan): SpanRecord {
  const context = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name: span.name,
    kind: span.kind,
    startTime: span.startTime,
    endTime: span.endTime,
    attributes: span.attributes,
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      ...(link.context.traceState ? { traceState: link.context.traceState.serialize() } : {}),
      ...(link.attributes ? { attributes: link.attributes } : {}),
    })),
    events: span.events.map((event) => ({
      name: event.name,
      time: event.time,
      ...(event.attributes ? { attributes: event.attributes } : {}),
    })),
    status: span.status,
  };
}

/** Epoch milliseconds as the API's [seconds, nanoseconds]. */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1_000_000)];
}

function otlpSpan(span: SpanRecord): OtlpSpan {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: span.kind + 1,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: keyValues(span.attributes),
    links: span.links.map((link) => ({
      traceId: link.traceId,
      spanId: link.spanId,
      ...(link.traceState ? { traceState: link.traceState } : {}),
      attributes: keyValues(link.attributes ?? {}),
    })),
    events: span.events.map((event) => ({
      name: event.name,
      timeUnixNano: nanos(event.time),
      attributes: keyValues(event.attributes ?? {}),
    })),
    status: { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) },
  };
}

/** The spans of one OTLP/JSON request, flattened. */
export function fromOtlpRequest(request: OtlpTraceRequest): TracedSpan[] {
  return request.resourceSpans.flatMap((resourceSpans) => {
    const service = values(resourceSpans.resource.attributes)['service.name'];
    return resourceSpans.scopeSpans.flatMap((scopeSpans) =>
      scopeSpans.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        startMs: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
        endMs: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
        attributes: values(span.attributes),
        links: span.links.map((link) => ({
          traceId: link.traceId,
          spanId: link.spanId,
          attributes: values(link.attributes),
        })),
        events: span.events.map((event) => ({ name: event.name, attributes: values(event.attributes) })),
        statusCode: span.status.code,
        statusMessage: span.status.message,
        service: typeof service === 'string' ? service : undefined,
      })),
    );
  });
}

function nanos(time: HrTime): string {
  return (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();
}

function keyValues(attributes: Attributes): KeyValue[] {
  return Object.entries(attributes).flatMap(([key, value]) =>
    value === undefined ? [] : [{ key, value: anyValue(value) }],
  );
}

function anyValue(value: AttributeValue | null | undefined): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => anyValue(item)) } };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return { stringValue: String(value ?? '') };
}

function values(keyValues: readonly KeyValue[]): Record<string, unknown> {
  return Object.fromEntries(keyValues.map(({ key, value }) => [key, plain(value)]));
}

function plain(value: AnyValue): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  return value.arrayValue.values.map(plain);
}
