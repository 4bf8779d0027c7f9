/**
 * A client span per DynamoDB request the consumer makes, as a middleware on the client's stack: one span per
 * command (the SDK's retries inside it, counted), named and described as OpenTelemetry's conventions name
 * AWS SDK calls, with the transaction's size. Its parent is the record (or the records) the engine said the
 * work was for (opentelemetry-tracing.ts#within); a request outside any, the active context's.
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Link,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import type { TraceableClient } from '../core/telemetry/consumer-tracer.js';
import { ATTR } from './span-attributes.js';

/** Which records the requests made now are for, kept in the active context under REQUEST_SCOPE. */
export interface RequestScope {
  readonly parent: Context;
  readonly links: readonly Link[];
  readonly records: number;
}

export const REQUEST_SCOPE = createContextKey('msk-inbox request scope');

/** The middleware's name on the stack: added twice, it replaces itself. */
const MIDDLEWARE_NAME = 'mskInboxRequestSpans';

type Next = (args: { input: unknown }) => Promise<{ output?: unknown }>;

export function instrumentDynamoDbClient(client: TraceableClient, tracerOf: () => Tracer): void {
  const middleware =
    (next: Next, handlerContext: { commandName?: string }) =>
    async (args: { input: unknown }): Promise<{ output?: unknown }> => {
      const active = context.active();
      const scope = active.getValue(REQUEST_SCOPE) as RequestScope | undefined;
      const operation = (handlerContext.commandName ?? 'Request').replace(/Command$/, '');
      const span = tracerOf().startSpan(
        `DynamoDB.${operation}`,
        {
          kind: SpanKind.CLIENT,
          ...(scope && scope.links.length > 0 ? { links: [...scope.links] } : {}),
          attributes: {
            [ATTR.rpcSystem]: 'aws-api',
            [ATTR.rpcService]: 'DynamoDB',
            [ATTR.rpcMethod]: operation,
            [ATTR.dbSystem]: 'aws.dynamodb',
            [ATTR.dbOperation]: operation,
            ...requestAttributes(args.input),
            ...(scope ? { [ATTR.transactionRecords]: scope.records } : {}),
          },
        },
        scope?.parent ?? active,
      );
      try {
        const result = await next(args);
        span.setAttributes(metadataAttributes(result.output));
        return result;
      } catch (error) {
        span.setAttributes({ ...metadataAttributes(error), ...cancellationAttributes(error) });
        const failure = error instanceof Error ? error : new Error(String(error));
        span.recordException(failure);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
        throw error;
      } finally {
        span.end();
      }
    };
  client.middlewareStack.add(middleware as never, {
    step: 'initialize',
    name: MIDDLEWARE_NAME,
    override: true,
  });
}

/** The tables a request names, and a transaction's or batch's number of actions. */
function requestAttributes(input: unknown): Attributes {
  if (typeof input !== 'object' || input === null) return {};
  const request = input as {
    TableName?: unknown;
    TransactItems?: unknown;
    RequestItems?: Record<string, readonly unknown[]>;
  };
  const tables = new Set<string>();
  if (typeof request.TableName === 'string') tables.add(request.TableName);
  let actions: number | undefined;
  if (Array.isArray(request.TransactItems)) {
    actions = request.TransactItems.length;
    for (const item of request.TransactItems as readonly Record<string, { TableName?: unknown }>[]) {
      for (const action of Object.values(item ?? {})) {
        if (typeof action?.TableName === 'string') tables.add(action.TableName);
      }
    }
  } else if (request.RequestItems && typeof request.RequestItems === 'object') {
    actions = 0;
    for (const [table, items] of Object.entries(request.RequestItems)) {
      tables.add(table);
      actions += Array.isArray(items) ? items.length : 1;
    }
  }
  return {
    ...(tables.size > 0 ? { [ATTR.dynamoDbTableNames]: [...tables].sort() } : {}),
    ...(actions !== undefined ? { [ATTR.dbBatchSize]: actions } : {}),
  };
}

/** The request id and the SDK's attempts, from a response's or an error's `$metadata`. */
function metadataAttributes(from: unknown): Attributes {
  const metadata = (from as { $metadata?: { requestId?: unknown; attempts?: unknown } } | undefined)
    ?.$metadata;
  if (metadata === undefined) return {};
  return {
    ...(typeof metadata.requestId === 'string' ? { [ATTR.awsRequestId]: metadata.requestId } : {}),
    ...(typeof metadata.attempts === 'number' ? { [ATTR.requestAttempts]: metadata.attempts } : {}),
  };
}

/** A cancelled transaction's reason per action (`None` for the blameless ones): which member failed. */
function cancellationAttributes(error: unknown): Attributes {
  const reasons = (error as { CancellationReasons?: readonly { Code?: unknown }[] } | undefined)
    ?.CancellationReasons;
  if (!Array.isArray(reasons)) return {};
  return {
    [ATTR.cancellationReasons]: reasons.map((reason) =>
      typeof reason?.Code === 'string' ? reason.Code : 'None',
    ),
  };
}
