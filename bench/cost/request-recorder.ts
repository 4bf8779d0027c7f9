/**
 * Records what each DynamoDB request a client sends touches, as marshalled (the deserialize step runs after
 * the DocumentClient's marshalling), and whether DynamoDB took it or refused it on a condition: every item
 * a write or a transaction names (with a Put's whole item), every item a read asks for, and the items a
 * Query or Scan returned. billed-capacity.ts prices them by the items' sizes, outside the timed section.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { REFUSALS } from '../measure/request-counter.js';
import { itemSizeBytes, type ReadKind } from './capacity-units.js';

export type ActionKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck' | 'Get';
export type Item = Readonly<Record<string, AttributeValue>>;

/** One item written, checked or read, alone or in a transaction. */
export interface RecordedAccess {
  readonly kind: ActionKind;
  readonly transactional: boolean;
  readonly table: string;
  /** The item's key: every table the bench prices has one string partition key (see `keyOf`). */
  readonly pk: string;
  /** A Put's whole item: its size is known from the request. */
  readonly item?: Item;
  /** A Get's consistency (`transactional` in a TransactGetItems). */
  readonly read?: ReadKind;
  /** DynamoDB refused the request on a condition (ConditionalCheckFailed, a cancelled transaction). */
  readonly refused: boolean;
}

/** A Query or a Scan: billed on the items' sizes together, not item by item. */
export interface RecordedQuery {
  readonly table: string;
  readonly read: Exclude<ReadKind, 'transactional'>;
  /** The returned items' sizes, summed (a projection or a filter would make this less than DynamoDB counts). */
  readonly bytes: number;
}

export interface Recorded {
  /** Item accesses of writes (Put, Update, Delete, ConditionCheck), in the order sent. */
  readonly writes: readonly RecordedAccess[];
  /** Item accesses of GetItem, BatchGetItem and TransactGetItems. */
  readonly reads: readonly RecordedAccess[];
  readonly queries: readonly RecordedQuery[];
}

/**
 * The key attributes of the tables the bench writes: this project's inbox, outbox and app tables (`pk`) and
 * Powertools' idempotency table (`id`, its DynamoDBPersistenceLayer's default).
 */
const KEY_ATTRIBUTES = ['pk', 'id'] as const;

/** The partition key value of an item, or of a request's Key. */
export function keyOf(item: Item): string {
  for (const name of KEY_ATTRIBUTES) {
    const value = item[name]?.S;
    if (value !== undefined) return value;
  }
  throw new Error(`an item with none of the key attributes ${KEY_ATTRIBUTES.join(', ')}`);
}

interface ActionInput {
  readonly TableName?: string;
  readonly Key?: Item;
  readonly Item?: Item;
  readonly ConsistentRead?: boolean;
}

const SINGLE_WRITES: Readonly<Record<string, ActionKind>> = {
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
};

/** Refused on a condition: DynamoDB bills these (docs/aws-facts.md#item-sizes-and-capacity-units). */

export class RequestRecorder {
  #writes: RecordedAccess[] = [];
  #reads: RecordedAccess[] = [];
  #queries: RecordedQuery[] = [];

  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // Inside the SDK's retry loop: each attempt that DynamoDB answered, once.
        const command = String(context.commandName);
        const input = args.input as Record<string, unknown>;
        try {
          const result = await next(args);
          this.#record(command, input, (result.output ?? {}) as unknown as Record<string, unknown>, false);
          return result;
        } catch (error) {
          // Throttled and failed requests are not billed (assumed: docs/aws-facts.md#item-sizes-and-capacity-units).
          if (error instanceof Error && REFUSALS.has(error.name)) this.#record(command, input, {}, true);
          throw error;
        }
      },
      { step: 'deserialize', name: 'benchRecordRequests', priority: 'high' },
    );
  }

  /** What was recorded since the last call. */
  take(): Recorded {
    const taken = { writes: this.#writes, reads: this.#reads, queries: this.#queries };
    this.#writes = [];
    this.#reads = [];
    this.#queries = [];
    return taken;
  }

  #record(
    command: string,
    input: Record<string, unknown>,
    output: Record<string, unknown>,
    refused: boolean,
  ) {
    const single = SINGLE_WRITES[command];
    if (single !== undefined) {
      this.#writes.push(accessOf(single, false, input as ActionInput, refused));
    } else if (command === 'TransactWriteItemsCommand') {
      for (const action of (input.TransactItems ?? []) as Record<string, ActionInput>[]) {
        const [kind, body] = Object.entries(action)[0] as [ActionKind, ActionInput];
        this.#writes.push(accessOf(kind, true, body, refused));
      }
    } else if (command === 'BatchWriteItemCommand') {
      const tables = (input.RequestItems ?? {}) as Record<
        string,
        Record<string, { Item?: Item; Key?: Item }>[]
      >;
      for (const [TableName, requests] of Object.entries(tables)) {
        for (const request of requests) {
          const [kind, body] = Object.entries(request)[0] as [string, { Item?: Item; Key?: Item }];
          this.#writes.push(
            accessOf(kind === 'PutRequest' ? 'Put' : 'Delete', false, { TableName, ...body }, refused),
          );
        }
      }
    } else if (command === 'GetItemCommand') {
      this.#reads.push(readOf(input as ActionInput, consistency(input), refused));
    } else if (command === 'TransactGetItemsCommand') {
      for (const action of (input.TransactItems ?? []) as { Get: ActionInput }[]) {
        this.#reads.push(readOf(action.Get, 'transactional', refused));
      }
    } else if (command === 'BatchGetItemCommand') {
      const tables = (input.RequestItems ?? {}) as Record<
        string,
        { Keys?: Item[]; ConsistentRead?: boolean }
      >;
      for (const [TableName, { Keys = [], ConsistentRead }] of Object.entries(tables)) {
        for (const Key of Keys) {
          this.#reads.push(readOf({ TableName, Key }, consistency({ ConsistentRead }), refused));
        }
      }
    } else if (command === 'QueryCommand' || command === 'ScanCommand') {
      const items = (output.Items ?? []) as Item[];
      this.#queries.push({
        table: String(input.TableName),
        read: consistency(input) === 'strong' ? 'strong' : 'eventual',
        bytes: items.reduce((sum, item) => sum + itemSizeBytes(item), 0),
      });
    }
  }
}

function accessOf(
  kind: ActionKind,
  transactional: boolean,
  body: ActionInput,
  refused: boolean,
): RecordedAccess {
  return {
    kind,
    transactional,
    table: String(body.TableName),
    pk: keyOf(body.Key ?? body.Item ?? {}),
    refused,
    ...(kind === 'Put' && body.Item ? { item: body.Item } : {}),
  };
}

function readOf(body: ActionInput, read: ReadKind, refused: boolean): RecordedAccess {
  return {
    kind: 'Get',
    transactional: read === 'transactional',
    table: String(body.TableName),
    pk: keyOf(body.Key ?? {}),
    read,
    refused,
  };
}

/** GetItem, BatchGetItem, Query and Scan read eventually consistent unless ConsistentRead is true. */
function consistency(input: { readonly ConsistentRead?: unknown }): 'strong' | 'eventual' {
  return input.ConsistentRead === true ? 'strong' : 'eventual';
}
