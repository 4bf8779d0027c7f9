/**
 * Faults a real DynamoDB Local cannot be made to produce (throttling, an outage), injected at the SDK
 * boundary: a middleware inside the SDK's retry loop, so the client's own retries run as in AWS.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local/client.js';

export interface SdkCall {
  readonly commandName: string;
  readonly input: Record<string, unknown>;
}

export type FaultRule = (call: SdkCall) => Error | undefined;

export interface FaultyClient {
  readonly client: DynamoDBClient;
  /** Every attempt the SDK made, retries included, whether it failed or not. */
  readonly attempts: SdkCall[];
}

export {
  serviceUnavailableError,
  throttlingError,
  timeoutError,
  transactionCanceledError,
  transactionConflictError,
  unreachableError,
} from '../../local/dynamodb-local/sdk-errors.js';

/** A client on the run's DynamoDB Local whose requests fail where `rule` says so. */
export function faultyClient(rule: FaultRule, maxAttempts = 2): FaultyClient {
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'), maxAttempts);
  const attempts: SdkCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const call = { commandName: String(context.commandName), input: args.input as Record<string, unknown> };
      attempts.push(call);
      const fault = rule(call);
      if (fault) throw fault;
      return next(args);
    },
    // The deserialize step runs inside the retry middleware: the SDK retries these faults itself.
    { step: 'deserialize', name: 'injectFault', priority: 'low' },
  );
  return { client, attempts };
}

/** The inbox key an order consumer request is about (its transaction's first action). */
export function inboxKeyOf(call: SdkCall): string | undefined {
  const items = call.input.TransactItems as { Put?: { Item?: { pk?: { S?: string } } } }[] | undefined;
  return items?.[0]?.Put?.Item?.pk?.S;
}
