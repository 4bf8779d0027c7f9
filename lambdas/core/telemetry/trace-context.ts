/**
 * The producer's trace context, read from a Kafka record's W3C `traceparent` and `tracestate` headers
 * (docs/tracing.md#w3c-trace-context), so a record's span can link to the span that produced it. A header
 * that breaks the format is as good as absent: the record loses its link, never its processing.
 */
import type { KafkaHeader } from '../decode-event.js';

export const TRACEPARENT_HEADER = 'traceparent';
const TRACESTATE_HEADER = 'tracestate';

/** OpenTelemetry's SpanContext fields, for a context that came from another process. */
export interface RemoteTraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** The producer's span: 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** The flags byte; bit 0 says the producer sampled the trace. */
  readonly traceFlags: number;
  /** The vendors' list as it came (the tracing API parses its members), when it passed the checks here. */
  readonly traceState?: string;
}

/** A version-00 traceparent is exactly this long: `vv-` + 32 + `-` + 16 + `-ff`. */
const VERSION_00_LENGTH = 55;
/** Every version shares this prefix; a later one may append `-` and fields version 00 does not know. */
const PREFIX = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})/;
const ALL_ZEROS = /^0+$/;
/** W3C asks vendors to propagate at least 512 characters of tracestate; more is not kept. */
const MAX_TRACESTATE_CHARS = 512;
/** Header text both formats allow: printable ASCII, and tabs (tracestate's optional whitespace). */
const PRINTABLE_ASCII = /^[\t\x20-\x7e]*$/;

/** The trace context the record carries, or undefined when it carries none that holds to the format. */
export function remoteTraceContextOf(headers: readonly KafkaHeader[]): RemoteTraceContext | undefined {
  const parents = headers.filter((header) => header.name === TRACEPARENT_HEADER);
  // Two traceparents name two parents: no way to tell which is the producer's.
  if (parents.length !== 1) return undefined;
  const parent = parseTraceparent(asciiText(parents[0]?.value));
  if (parent === undefined) return undefined;
  const traceState = traceStateOf(headers);
  return traceState === undefined ? parent : { ...parent, traceState };
}

/**
 * One traceparent value, by W3C Trace Context's rules: lowercase hex; version `ff` is invalid; version 00
 * is exactly 55 characters; a later version is read by version 00's fields when its 56th character, if any,
 * is `-`; neither id may be all zeros.
 */
export function parseTraceparent(
  text: string | undefined,
): Omit<RemoteTraceContext, 'traceState'> | undefined {
  if (text === undefined) return undefined;
  const match = PREFIX.exec(text);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff') return undefined;
  if (
    version === '00'
      ? text.length !== VERSION_00_LENGTH
      : text.length > VERSION_00_LENGTH && text[VERSION_00_LENGTH] !== '-'
  ) {
    return undefined;
  }
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** The traceparent a consumer sends onward: version 00, its own span as the parent. */
export function formatTraceparent(context: Omit<RemoteTraceContext, 'traceState'>): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, '0')}`;
}

/**
 * Every tracestate header joined as one list (as HTTP joins repeated fields), when it is printable ASCII
 * within the length W3C asks to be kept; otherwise none, the traceparent kept.
 */
function traceStateOf(headers: readonly KafkaHeader[]): string | undefined {
  const parts: string[] = [];
  for (const header of headers) {
    if (header.name !== TRACESTATE_HEADER) continue;
    const text = asciiText(header.value);
    if (text === undefined) return undefined;
    if (text.trim() !== '') parts.push(text.trim());
  }
  const joined = parts.join(',');
  return joined === '' || joined.length > MAX_TRACESTATE_CHARS ? undefined : joined;
}

/** The bytes as text when every one is printable ASCII (or a tab); undefined otherwise. */
function asciiText(bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  const text = bytes.toString('latin1');
  return PRINTABLE_ASCII.test(text) ? text : undefined;
}
