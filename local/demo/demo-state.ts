/**
 * What a consumer left once the demo's processing is over, read the same way whatever the store: its
 * effects (the order consumer's balances and totals, or the notification consumer's calls), the COMPLETED
 * inbox rows, and the quarantine rows by coordinates (`topic-partition@offset`). verify.ts judges it
 * against the workload. The Redis reader is demo-redis.ts.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import pg from 'pg';
import { INBOX_STATUS, parseRowKey, QUARANTINE_INDEX } from '../../lambdas/core/inbox-rows.js';
import { keyOfStored } from '../../lambdas/postgres/sql-text.js';

export interface DemoState {
  readonly effects: OrderEffects | CallEffects;
  readonly completedRows: number;
  /** Quarantined records: coordinates → reason, undefined where the store's reader cannot tell it. */
  readonly quarantined: ReadonlyMap<string, string | undefined>;
}

/** The sample order consumer's transactional effects: the app's rows. */
export interface OrderEffects {
  readonly kind: 'orders';
  /** `account#<id>` → balance. */
  readonly balances: ReadonlyMap<string, number>;
  /** `order#<id>` → total. */
  readonly orderTotals: ReadonlyMap<string, number>;
  /** Orders whose status is not PLACED. */
  readonly badStatus: readonly string[];
  /** App items that are neither an account nor an order. */
  readonly strays: readonly string[];
}

/** The sample notification consumer's side effects: the calls its receiver got. */
export interface CallEffects {
  readonly kind: 'calls';
  /** Idempotency-Key → calls received with it. */
  readonly callsByKey: ReadonlyMap<string, number>;
}

export async function readDynamoDbState(input: {
  readonly client: DynamoDBClient;
  readonly appTableName: string;
  readonly inboxTableName: string;
  readonly consumerName: string;
}): Promise<DemoState> {
  const documents = DynamoDBDocumentClient.from(input.client);
  const balances = new Map<string, number>();
  const orderTotals = new Map<string, number>();
  const badStatus: string[] = [];
  const strays: string[] = [];
  for await (const page of paginateScan(
    { client: documents },
    { TableName: input.appTableName, ConsistentRead: true },
  )) {
    for (const item of page.Items ?? []) {
      const pk = String(item.pk);
      if (pk.startsWith('account#')) balances.set(pk, Number(item.balance));
      else if (pk.startsWith('order#')) {
        orderTotals.set(pk, Number(item.total));
        if (item.status !== 'PLACED') badStatus.push(pk);
      } else strays.push(pk);
    }
  }
  let completedRows = 0;
  for await (const page of paginateScan(
    { client: documents },
    {
      TableName: input.inboxTableName,
      ConsistentRead: true,
      FilterExpression: '#status = :completed AND begins_with(pk, :prefix)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':completed': INBOX_STATUS.completed,
        ':prefix': `${input.consumerName}#`,
      },
      Select: 'COUNT',
    },
  )) {
    completedRows += page.Count ?? 0;
  }
  const quarantined = new Map<string, string>();
  for await (const page of paginateQuery(
    { client: documents },
    {
      TableName: input.inboxTableName,
      IndexName: QUARANTINE_INDEX.name,
      KeyConditionExpression: '#consumer = :consumer',
      ExpressionAttributeNames: { '#consumer': QUARANTINE_INDEX.partitionKey },
      ExpressionAttributeValues: { ':consumer': input.consumerName },
    },
  )) {
    for (const item of page.Items ?? []) {
      if (item.status !== INBOX_STATUS.quarantined) continue;
      const key = parseRowKey(input.consumerName, String(item.pk));
      quarantined.set(key?.id ?? String(item.pk), String(item.reason));
    }
  }
  return {
    effects: { kind: 'orders', balances, orderTotals, badStatus, strays },
    completedRows,
    quarantined,
  };
}

/** The sample's SQL tables (sample/order-consumer/order-placed-sql.ts) and the inbox's (lambdas/postgres). */
export async function readPostgresState(input: {
  readonly url: string;
  readonly inboxSchema: string;
  readonly consumerName: string;
}): Promise<DemoState> {
  const pool = new pg.Pool({ connectionString: input.url, max: 1 });
  try {
    const accounts = await pool.query<{ account_id: string; balance: string }>(
      'SELECT account_id, balance FROM accounts',
    );
    const orders = await pool.query<{ order_id: string; total: string; status: string }>(
      'SELECT order_id, total, status FROM orders',
    );
    const completed = await pool.query<{ count: string }>(
      `SELECT count(*) FROM ${input.inboxSchema}.inbox WHERE consumer = $1 AND status = $2`,
      [input.consumerName, INBOX_STATUS.completed],
    );
    const quarantine = await pool.query<{ quarantine_key: string; item: string }>(
      `SELECT quarantine_key, item FROM ${input.inboxSchema}.quarantine WHERE consumer = $1 AND status = $2`,
      [input.consumerName, INBOX_STATUS.quarantined],
    );
    return {
      effects: {
        kind: 'orders',
        balances: new Map(accounts.rows.map((row) => [`account#${row.account_id}`, Number(row.balance)])),
        orderTotals: new Map(orders.rows.map((row) => [`order#${row.order_id}`, Number(row.total)])),
        badStatus: orders.rows.filter((row) => row.status !== 'PLACED').map((row) => `order#${row.order_id}`),
        strays: [],
      },
      completedRows: Number(completed.rows[0]?.count ?? 0),
      quarantined: new Map(
        quarantine.rows.map((row) => [
          keyOfStored(row.quarantine_key),
          String((JSON.parse(row.item) as { reason?: unknown }).reason),
        ]),
      ),
    };
  } finally {
    await pool.end();
  }
}
