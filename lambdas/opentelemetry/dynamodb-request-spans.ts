/**
 * A client span per DynamoDB request the consumer makes, as a middleware on the client's stack: one span per
 * command (the SDK's retries inside it, counted), named and described as OpenTelemetry's conventions name
 * AWS SDK calls, with the transaction's size; its parent as client-spans.ts decides.
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { TraceableClient } from '../core/telemetry/consumer-tracer.js';
import { inClientSpan } from './client-spans.js';
import { ATTR } from './span-attributes.js';

/** The middleware's name on the stack: added twice, it replaces itself. */
const MIDDLEWARE_NAME = 'mskInboxRequestSpans';

type Next = (args: { input: unknown }) => Promise<{ output?: unknown }>;

export function instrumentDynamoDbClient(client: TraceableClient, tracerOf: () => Tracer): void {
  const middleware =
    (next: Next, handlerContext: { commandName?: string }) =>
    (args: { input: unknown }): Promise<{ output?: unknown }> => {
      const operation = (handlerContext.commandName ?? 'Request').replace(/Command$/, '');
      return inClientSpan(
        tracerOf(),
        `DynamoDB.${operation}`,
        {
          [ATTR.rpcSystem]: 'aws-api',
          [ATTR.rpcService]: 'DynamoDB',
          [ATTR.rpcMethod]: operation,
          [ATTR.dbSystem]: 'aws.dynamodb',
          [ATTR.dbOperation]: operation,
          ...requestAttributes(args.input),
        },
        () => next(args),
        {
          result: (result) => metadataAttributes(result.output),
          error: (error) => ({ ...metadataAttributes(error), ...cancellationAttributes(error) }),
        },
      );
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
