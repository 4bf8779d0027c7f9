import { DeleteTableCommand, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createAppTable, createInboxTable, createTableKeyedBy } from '../../local/dynamodb-local/tables.js';
import type { BalanceSource, BenchTables } from '../contenders/contender.js';

/** Fresh tables for one sequence, named after it so a failed run is easy to trace. */
export async function createBenchTables(client: DynamoDBClient, prefix: string): Promise<BenchTables> {
  const tables = { inbox: `${prefix}-inbox`, app: `${prefix}-app`, idempotency: `${prefix}-idempotency` };
  await Promise.all([
    createInboxTable(client, tables.inbox),
    createAppTable(client, tables.app),
    createIdempotencyTable(client, tables.idempotency),
  ]);
  return tables;
}

/** Dropped after each sequence: DynamoDB Local keeps everything in memory and slows as it grows. */
export async function deleteBenchTables(client: DynamoDBClient, tables: BenchTables): Promise<void> {
  await Promise.all(
    [tables.inbox, tables.app, tables.idempotency].map((TableName) =>
      client.send(new DeleteTableCommand({ TableName })),
    ),
  );
}

/** The table Powertools' DynamoDBPersistenceLayer expects by default: partition key `id` (string). */
function createIdempotencyTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createTableKeyedBy(client, tableName, 'id');
}

/**
 * Every account balance in the app table: its `account#<id>` item's balance, or (`orders`) minus the sum of
 * the amounts of its `order#` items.
 */
export async function readBalances(
  client: DynamoDBClient,
  tableName: string,
  from: BalanceSource = 'accounts',
): Promise<Map<string, number>> {
  const balances = new Map<string, number>();
  let ExclusiveStartKey: ScanCommand['input']['ExclusiveStartKey'];
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw);
      const pk = String(item.pk);
      if (from === 'accounts' && pk.startsWith('account#'))
        balances.set(pk.slice('account#'.length), Number(item.balance));
      if (from === 'orders' && pk.startsWith('order#')) {
        const account = String(item.account_id);
        balances.set(account, (balances.get(account) ?? 0) - Number(item.amount));
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return balances;
}
