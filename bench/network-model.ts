/**
 * The network the bench puts between each contender and DynamoDB Local: a middleware in the contender's SDK
 * client holds every response until the request's modelled round trip has passed since it was sent, then
 * lets the SDK read it. Each hold is its own wait (bench/measure/hold-until.ts), so requests in flight overlap
 * as they do on a real network.
 *
 * A round trip is the base (the swept `rttMs`: a single-item request, Lambda to DynamoDB in one region) plus,
 * for a transaction, a fixed cost of its own and a term per action, and for a batch request a term per item.
 * The figures are p50s measured from Lambda against DynamoDB in its region (docs/benchmarks.md cites them);
 * they include DynamoDB's own service time, which is why DynamoDB Local's time is hidden under the hold
 * rather than added to it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { holdUntil } from './measure/hold-until.js';

/** Base round trips swept beside 0 (no middleware) unless `--rtt` says otherwise. */
export const DEFAULT_RTT_SWEEP_MS: readonly number[] = [2, 5, 10, 20];

/**
 * From Alex DeBrie's measurements (Lambda in us-east-1, p50 over 4,000 calls): PutItem 7.55 ms;
 * TransactWriteItems 25.3 ms with 5 items and 32.1 ms with 25; BatchWriteItem 8.14 ms with 5 and 10.2 with 25.
 */
export const NETWORK_MODEL = {
  /** What a transaction costs beyond a single-item request, whatever its size: 25.3 - 5 × 0.34 - 7.55. */
  transactionMs: 16,
  /** Per action of a TransactWriteItems (and, assumed alike, a TransactGetItems): (32.1 - 25.3) / 20. */
  transactionActionMs: 0.34,
  /** Per item of a BatchWriteItem or BatchGetItem: (10.2 - 8.14) / 20. */
  batchItemMs: 0.1,
} as const;

/** The modelled round trip of one request, in ms, from its (marshalled) input. */
export function modelledRoundTripMs(baseMs: number, input: unknown): number {
  const { TransactItems, RequestItems } = (input ?? {}) as {
    TransactItems?: readonly unknown[];
    RequestItems?: Readonly<Record<string, unknown>>;
  };
  if (Array.isArray(TransactItems)) {
    return baseMs + NETWORK_MODEL.transactionMs + NETWORK_MODEL.transactionActionMs * TransactItems.length;
  }
  if (RequestItems && typeof RequestItems === 'object') {
    // BatchWriteItem lists requests per table; BatchGetItem lists { Keys } per table.
    const items = Object.values(RequestItems).reduce<number>((sum, perTable) => {
      if (Array.isArray(perTable)) return sum + perTable.length;
      const keys = (perTable as { Keys?: readonly unknown[] } | undefined)?.Keys;
      return sum + (Array.isArray(keys) ? keys.length : 0);
    }, 0);
    return baseMs + NETWORK_MODEL.batchItemMs * items;
  }
  return baseMs;
}

/** One line for the report and the progress output. */
export function describeNetworkModel(): string {
  const { transactionMs, transactionActionMs, batchItemMs } = NETWORK_MODEL;
  return (
    `round trip = rttMs for a single-item request; rttMs + ${transactionMs} + ${transactionActionMs} × actions ` +
    `for TransactWriteItems/TransactGetItems; rttMs + ${batchItemMs} × items for BatchWriteItem/BatchGetItem`
  );
}

/**
 * Adds the hold to a client. It sits inside the deserializer, around the HTTP exchange itself, so the
 * response (a refusal too) waits unread, and inside the retry loop, so every attempt is a round trip.
 */
export function attachNetworkModel(client: DynamoDBClient, baseMs: number): void {
  if (baseMs <= 0) return;
  client.middlewareStack.add(
    (next) => async (args) => {
      const sent = performance.now();
      const response = await next(args);
      await holdUntil(sent + modelledRoundTripMs(baseMs, args.input));
      return response;
    },
    { step: 'deserialize', name: 'benchModelledRoundTrip', priority: 'low' },
  );
}
