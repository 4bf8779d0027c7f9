/**
 * The slowest records of a run, each as a waterfall of the spans around it (docs/tracing.md#locally): the
 * producer's span its link names, the invocation and partition batch above it, the record, and the store
 * requests made for it (its children, and shared transactions that link it). What the dashboard draws.
 */
import { ATTR, LINK_ROLE } from '../../lambdas/opentelemetry/span-attributes.js';
import { OTLP_SPAN_KIND, type TracedSpan } from './otlp-json.js';

export type WaterfallRole =
  | 'producer'
  | 'invocation'
  | 'batch'
  | 'record'
  | 'request'
  | 'shared-request'
  /** The other records' requests of its partition while it ran: what its own commit waited behind. */
  | 'partition-requests';

export interface WaterfallRow {
  readonly role: WaterfallRole;
  readonly name: string;
  readonly service: string | undefined;
  /** Indent: 0 the invocation, 1 the batch, 2 the record, 3 its requests; the producer sits at 0. */
  readonly depth: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly error: boolean;
  /** A few words of what the span's attributes say (outcome, transaction size). */
  readonly detail: string;
}

export interface RecordWaterfall {
  /** `topic-partition@offset`. */
  readonly record: string;
  readonly outcome: string;
  readonly durationMs: number;
  /** The time axis: the invocation's span (the record's, without one). */
  readonly axisStartMs: number;
  readonly axisEndMs: number;
  /** How long before the axis starts the producer's span ended, when the record links to a known one. */
  readonly producedBeforeMs: number | undefined;
  readonly rows: readonly WaterfallRow[];
}

/** Record spans: the consumer's `process <topic>` spans, one per record per delivery. */
export function isRecordSpan(span: TracedSpan): boolean {
  return span.kind === OTLP_SPAN_KIND.consumer && span.attributes[ATTR.kafkaOffset] !== undefined;
}

export function slowestRecordWaterfalls(spans: readonly TracedSpan[], count: number): RecordWaterfall[] {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const children = new Map<string, TracedSpan[]>();
  const linkers = new Map<string, TracedSpan[]>();
  for (const span of spans) {
    if (span.parentSpanId) push(children, span.parentSpanId, span);
    for (const link of span.links)
      if (link.attributes[ATTR.linkRole] === LINK_ROLE.record) push(linkers, link.spanId, span);
  }
  return spans
    .filter(isRecordSpan)
    .sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs))
    .slice(0, count)
    .map((record) => waterfallOf(record, byId, children, linkers));
}

function waterfallOf(
  record: TracedSpan,
  byId: ReadonlyMap<string, TracedSpan>,
  children: ReadonlyMap<string, TracedSpan[]>,
  linkers: ReadonlyMap<string, TracedSpan[]>,
): RecordWaterfall {
  const batch = record.parentSpanId ? byId.get(record.parentSpanId) : undefined;
  const invocation = batch?.parentSpanId ? byId.get(batch.parentSpanId) : undefined;
  const producerLink = record.links.find((link) => link.attributes[ATTR.linkRole] === LINK_ROLE.producer);
  const producer = producerLink ? byId.get(producerLink.spanId) : undefined;
  const axis = invocation ?? batch ?? record;
  const own = [...(children.get(record.spanId) ?? []), ...(linkers.get(record.spanId) ?? [])];
  const requests = [
    ...(children.get(record.spanId) ?? []).map((span) => row(span, 'request', 3)),
    ...(linkers.get(record.spanId) ?? []).map((span) => row(span, 'shared-request', 3)),
  ].sort((a, b) => a.startMs - b.startMs);
  const others = batch ? otherRequests(batch, record, own, children) : undefined;
  const a = record.attributes;
  return {
    record: `${a[ATTR.destinationName]}-${a[ATTR.partitionId]}@${a[ATTR.kafkaOffset]}`,
    outcome: String(a[ATTR.outcomeStatus] ?? 'unknown'),
    durationMs: record.endMs - record.startMs,
    axisStartMs: axis.startMs,
    axisEndMs: axis.endMs,
    producedBeforeMs: producer ? Math.max(0, axis.startMs - producer.endMs) : undefined,
    rows: [
      ...(producer ? [row(producer, 'producer', 0)] : []),
      ...(invocation ? [row(invocation, 'invocation', 0)] : []),
      ...(batch ? [row(batch, 'batch', 1)] : []),
      row(record, 'record', 2),
      ...(others ? [others] : []),
      ...requests,
    ],
  };
}

/** One row for the requests of the record's partition made for other records while it ran, if any. */
function otherRequests(
  batch: TracedSpan,
  record: TracedSpan,
  own: readonly TracedSpan[],
  children: ReadonlyMap<string, TracedSpan[]>,
): WaterfallRow | undefined {
  const mine = new Set(own.map((span) => span.spanId));
  const requests = (children.get(batch.spanId) ?? [])
    .flatMap((child) => (child.kind === OTLP_SPAN_KIND.client ? [child] : (children.get(child.spanId) ?? [])))
    .filter(
      (span) =>
        span.kind === OTLP_SPAN_KIND.client &&
        !mine.has(span.spanId) &&
        span.startMs < record.endMs &&
        span.endMs > record.startMs,
    );
  if (requests.length === 0) return undefined;
  return {
    role: 'partition-requests',
    name: `${requests.length} request${requests.length === 1 ? '' : 's'} for other records`,
    service: undefined,
    depth: 3,
    startMs: Math.min(...requests.map((span) => span.startMs)),
    endMs: Math.max(...requests.map((span) => span.endMs)),
    error: requests.some((span) => span.statusCode === 2),
    detail: 'of its partition, while it ran',
  };
}

function row(span: TracedSpan, role: WaterfallRole, depth: number): WaterfallRow {
  return {
    role,
    name: span.name,
    service: span.service,
    depth,
    startMs: span.startMs,
    endMs: span.endMs,
    error: span.statusCode === 2,
    detail: detailOf(span, role),
  };
}

function detailOf(span: TracedSpan, role: WaterfallRole): string {
  const a = span.attributes;
  switch (role) {
    case 'producer':
      return `event ${a[ATTR.dedupKey] ?? ''}`.trim();
    case 'invocation':
      return `${a[ATTR.batchMessageCount] ?? '?'} records, request ${a[ATTR.faasInvocationId] ?? '?'}`;
    case 'batch':
      return `${a[ATTR.batchMessageCount] ?? '?'} records of partition ${a[ATTR.partitionId] ?? '?'}`;
    case 'record':
      return [a[ATTR.outcome], a[ATTR.outcomeReason], a[ATTR.dedupKey]]
        .filter((part) => part !== undefined)
        .join(' · ');
    default: {
      const actions = a[ATTR.dbBatchSize];
      const records = a[ATTR.transactionRecords];
      return [
        actions === undefined ? undefined : `${actions} actions`,
        records === undefined ? undefined : `${records} record${records === 1 ? '' : 's'}`,
        role === 'shared-request' ? 'shared' : undefined,
        span.statusCode === 2 ? span.statusMessage : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(' · ');
    }
  }
}

function push(map: Map<string, TracedSpan[]>, key: string, span: TracedSpan): void {
  const list = map.get(key);
  if (list) list.push(span);
  else map.set(key, [span]);
}
