/**
 * Counts the DynamoDB requests a contender sends, from inside the SDK client: every HTTP attempt (SDK
 * retries included, as each is billed), the ones refused by a condition, and the write capacity DynamoDB
 * says it consumed. The contenders need no change: the middleware asks for ReturnConsumedCapacity itself.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface RequestTally {
  /** HTTP requests to DynamoDB, retries included. */
  readonly requests: number;
  /** Requests refused by a condition: ConditionalCheckFailedException or a cancelled transaction. */
  readonly refused: number;
  /** Transactions sent: TransactWriteItems and TransactGetItems requests (on Postgres, each BEGIN). */
  readonly transactions: number;
  /** Sum of ConsumedCapacity.CapacityUnits returned by successful writes. */
  readonly wcu: number;
  readonly byCommand: Readonly<Record<string, number>>;
}

/** Writes whose responses can carry ConsumedCapacity. */
const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

/** Requests that are a transaction of their own. */
const TRANSACTION_COMMANDS = new Set(['TransactWriteItemsCommand', 'TransactGetItemsCommand']);

/** The errors of a request DynamoDB answered by refusing it on a condition (a failed conditional write, a cancelled transaction). */
export const REFUSALS: ReadonlySet<string> = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
]);

interface Capacity {
  readonly CapacityUnits?: number;
}

export class RequestCounter {
  #requests = 0;
  #refused = 0;
  #transactions = 0;
  #wcu = 0;
  #byCommand: Record<string, number> = {};

  /** Adds the counting middleware to a client; every contender's client goes through here. */
  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (WRITE_COMMANDS.has(String(context.commandName))) {
          const input = args.input as { ReturnConsumedCapacity?: string };
          input.ReturnConsumedCapacity ??= 'TOTAL';
        }
        return next(args);
      },
      { step: 'initialize', name: 'benchReturnConsumedCapacity' },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // The deserialize step runs inside the SDK's retry loop: each attempt is one request.
        const command = String(context.commandName);
        this.#requests += 1;
        if (TRANSACTION_COMMANDS.has(command)) this.#transactions += 1;
        this.#byCommand[command] = (this.#byCommand[command] ?? 0) + 1;
        try {
          const result = await next(args);
          this.#wcu += capacityUnits((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
          return result;
        } catch (error) {
          if (error instanceof Error && REFUSALS.has(error.name)) this.#refused += 1;
          throw error;
        }
      },
      // High priority within the step: outside the deserializer, so the parsed output is visible.
      { step: 'deserialize', name: 'benchCountRequests', priority: 'high' },
    );
  }

  reset(): void {
    this.#requests = 0;
    this.#refused = 0;
    this.#transactions = 0;
    this.#wcu = 0;
    this.#byCommand = {};
  }

  tally(): RequestTally {
    return {
      requests: this.#requests,
      refused: this.#refused,
      transactions: this.#transactions,
      wcu: this.#wcu,
      byCommand: { ...this.#byCommand },
    };
  }
}

/** PutItem/UpdateItem return one ConsumedCapacity; TransactWriteItems one per table. */
function capacityUnits(consumed: unknown): number {
  if (consumed === undefined || consumed === null) return 0;
  const entries = (Array.isArray(consumed) ? consumed : [consumed]) as Capacity[];
  return entries.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}
