/**
 * Records the writes a client sends, as marshalled (the build step runs after the DocumentClient's
 * marshalling): each TransactWriteItems' actions and each single-item write, with its table and key, so the
 * bench can price them by the items' sizes (write-units.ts) outside the timed section.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type ActionKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/** One item written (or checked), in a transaction or alone. */
export interface RecordedWrite {
  readonly kind: ActionKind;
  readonly transactional: boolean;
  readonly table: string;
  readonly pk: string;
  /** A Put's whole item: its size is known from the request. */
  readonly item?: Readonly<Record<string, AttributeValue>>;
}

type Item = Record<string, AttributeValue>;
interface ActionInput {
  readonly TableName?: string;
  readonly Key?: Item;
  readonly Item?: Item;
}

const SINGLE_WRITES: Readonly<Record<string, ActionKind>> = {
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
};

export class WriteRecorder {
  #writes: RecordedWrite[] = [];
  #transactions = 0;

  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        this.#record(String(context.commandName), args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'build', name: 'benchRecordWrites' },
    );
  }

  /** What was recorded since the last call, and how many transactions. */
  take(): { readonly writes: readonly RecordedWrite[]; readonly transactions: number } {
    const taken = { writes: this.#writes, transactions: this.#transactions };
    this.#writes = [];
    this.#transactions = 0;
    return taken;
  }

  #record(command: string, input: Record<string, unknown>): void {
    if (command === 'TransactWriteItemsCommand') {
      this.#transactions += 1;
      for (const action of (input.TransactItems ?? []) as Record<string, ActionInput>[]) {
        const [kind, body] = Object.entries(action)[0] as [ActionKind, ActionInput];
        this.#writes.push(writeOf(kind, true, body));
      }
      return;
    }
    const kind = SINGLE_WRITES[command];
    if (kind !== undefined) this.#writes.push(writeOf(kind, false, input as ActionInput));
  }
}

function writeOf(kind: ActionKind, transactional: boolean, body: ActionInput): RecordedWrite {
  const key = body.Key ?? body.Item ?? {};
  return {
    kind,
    transactional,
    table: String(body.TableName),
    pk: String(key.pk?.S ?? key.id?.S),
    ...(kind === 'Put' && body.Item ? { item: body.Item } : {}),
  };
}
