/**
 * The sample service on Postgres: the same OrderPlaced (order-placed.ts: schema, skip, the id check), its
 * effect as SQL in the inbox transaction. Relative updates on purpose, as on DynamoDB: only the inbox makes
 * them exactly-once. The tables are the sample's own (ORDER_TABLES_SQL), in the team's schema, not the
 * inbox's.
 */
import {
  type EffectPlan,
  EffectRejectedError,
  type InboxConsumerOptions,
  type InboxEffectInput,
  type SqlTransaction,
} from '../../lambdas/core/index.js';
import { OrderPlaced, skipOtherEventTypes } from './order-placed.js';

/** The sample's tables: accounts debited and orders totalled, as the DynamoDB items are. */
export function orderTablesSql(schema = 'public'): string {
  return `CREATE TABLE IF NOT EXISTS ${schema}.accounts (
  account_id  text    PRIMARY KEY,
  balance     bigint  NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ${schema}.orders (
  order_id  text    PRIMARY KEY,
  total     bigint  NOT NULL DEFAULT 0,
  status    text    NOT NULL
);`;
}

export function orderPlacedSqlEffect(schema = 'public') {
  return ({ event, dedupKey }: InboxEffectInput<OrderPlaced>): EffectPlan => {
    if (event.event_id !== dedupKey) {
      throw new EffectRejectedError(
        'invalid-event',
        'event_id in the value differs from the event_id header',
      );
    }
    return { kind: 'sql', run: (sql) => applyOrderPlaced(sql, event, schema) };
  };
}

export async function applyOrderPlaced(
  sql: SqlTransaction,
  order: OrderPlaced,
  schema = 'public',
): Promise<void> {
  await sql.query(
    `INSERT INTO ${schema}.accounts (account_id, balance) VALUES ($1, -$2::bigint)
     ON CONFLICT (account_id) DO UPDATE SET balance = accounts.balance - $2::bigint`,
    [order.account_id, order.amount],
  );
  await sql.query(
    `INSERT INTO ${schema}.orders (order_id, total, status) VALUES ($1, $2::bigint, 'PLACED')
     ON CONFLICT (order_id) DO UPDATE SET total = orders.total + $2::bigint, status = 'PLACED'`,
    [order.order_id, order.amount],
  );
}

/** The sample consumer on Postgres, for createInboxConsumer with `store: postgresInbox()`. */
export function orderSqlConsumer(schema = 'public') {
  return {
    schema: OrderPlaced,
    skip: skipOtherEventTypes,
    effect: orderPlacedSqlEffect(schema),
  } satisfies InboxConsumerOptions<typeof OrderPlaced>;
}
