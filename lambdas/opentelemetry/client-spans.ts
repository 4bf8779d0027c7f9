/**
 * Client spans of the consumer's store requests: their parent is the record (or the records) the engine said
 * the work was for (opentelemetry-tracing.ts#within puts that scope in the active context); a request
 * outside any, the active context's own. One rule for DynamoDB's requests and a Postgres store's.
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR } from './span-attributes.js';

/** Which records the requests made now are for, kept in the active context under REQUEST_SCOPE. */
export interface RequestScope {
  readonly parent: Context;
  readonly links: readonly Link[];
  readonly records: number;
}

export const REQUEST_SCOPE = createContextKey('msk-inbox request scope');

/** What a request's outcome adds to its span. */
export interface OutcomeAttributes<T> {
  readonly result?: (result: T) => Attributes;
  readonly error?: (error: unknown) => Attributes;
}

/**
 * Runs `work` as a client span; a failure is recorded on it (the exception, status error) and rethrown. The
 * span's own bookkeeping never touches the request: a tracer or span processor that throws leaves the request
 * to run, and its answer, as they would without it.
 */
export async function inClientSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  outcome: OutcomeAttributes<T> = {},
): Promise<T> {
  let span: Span;
  try {
    const active = context.active();
    const scope = active.getValue(REQUEST_SCOPE) as RequestScope | undefined;
    span = tracer.startSpan(
      name,
      {
        kind: SpanKind.CLIENT,
        ...(scope && scope.links.length > 0 ? { links: [...scope.links] } : {}),
        // The request's own count, when it gives one, over the scope's.
        attributes: { ...(scope ? { [ATTR.transactionRecords]: scope.records } : {}), ...attributes },
      },
      scope?.parent ?? active,
    );
  } catch {
    return work();
  }
  let result: T;
  try {
    result = await work();
  } catch (error) {
    harmless(() => {
      if (outcome.error) span.setAttributes(outcome.error(error));
      const failure = error instanceof Error ? error : new Error(String(error));
      span.recordException(failure);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      span.end();
    });
    throw error;
  }
  harmless(() => {
    if (outcome.result) span.setAttributes(outcome.result(result));
    span.end();
  });
  return result;
}

/** Tracing's own failure is never the request's. */
function harmless(record: () => void): void {
  try {
    record();
  } catch {
    // A span processor's fault: the span is lost, the request is not.
  }
}
