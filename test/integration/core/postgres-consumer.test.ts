/**
 * The front door with the Postgres store: `createInboxConsumer({ store: postgresInbox({ pool, settings }) })`
 * with a `sql` effect and no INBOX_TABLE_NAME, a Kafka batch end to end on PGlite and Debian's Postgres,
 * and the schedule's DELETE_EXPIRED_ROWS_EVENT.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import {
  createInboxConsumer,
  DELETE_EXPIRED_ROWS_EVENT,
  EffectRejectedError,
  type InboxConsumerOptions,
  type RecordOutcome,
} from '../../../lambdas/core/index.js';
import { postgresInbox } from '../../../lambdas/postgres/index.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { countRows, inboxDatabase } from '../../support/postgres-inbox.js';

interface Order {
  readonly account_id: string;
  readonly amount: number;
}

const DEDUP_TTL_SECONDS = 3_600;

describeOnPostgres('createInboxConsumer with postgresInbox', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    await db.pool.query(`insert into accounts values ('acct-1', 0), ('acct-2', 0)`);
  });
  afterEach(() => db.drop());

  /** Credits the order's amount; a balance below zero breaks the table's CHECK (23514). */
  const effect: InboxConsumerOptions['effect'] = ({ event }) => {
    const order = event as Order;
    if (order.account_id === 'closed')
      throw new EffectRejectedError('account-closed', 'the account is closed');
    return {
      kind: 'sql',
      run: async (sql) => {
        await sql.query('update accounts set balance = balance + $1 where id = $2', [
          order.amount,
          order.account_id,
        ]);
      },
    };
  };

  const options = (): InboxConsumerOptions => ({
    store: postgresInbox({ pool: db.pool, settings: { schema: db.schema } }),
    effect,
    settings: { consumerName: 'orders', dedupTtlSeconds: DEDUP_TTL_SECONDS },
    logger: new Logger({ logLevel: 'SILENT' }),
  });

  /** A container: its own handler, cache and outcomes. */
  const container = () => {
    let outcomes: readonly RecordOutcome[] = [];
    const handler = createObservedInboxConsumer(options(), {
      clock,
      observe: {
        batchProcessed: (_summary, batch) => {
          outcomes = batch;
        },
      },
    });
    return {
      invoke: (event: unknown) => handler(event, lambdaContext(clock)),
      outcomes: () =>
        outcomes.map((o) => `${o.partitionKey}@${o.offset} ${o.status}${o.reason ? ` ${o.reason}` : ''}`),
    };
  };
  const balances = async () =>
    (await db.pool.query('select id, balance from accounts order by id')).rows.map(
      (row) => `${row.id} ${row.balance}`,
    );

  const batch = kafkaEvent([
    orderRecord(10, { eventId: 'e1', accountId: 'acct-1', amount: 5 }),
    orderRecord(11, { eventId: 'e2', accountId: 'acct-1', amount: 7 }),
    orderRecord(20, { eventId: 'e3', accountId: 'acct-2', amount: 3 }, 1),
  ]);

  it('needs no INBOX_TABLE_NAME: the public entry applies a batch in Postgres', async () => {
    expect(process.env.INBOX_TABLE_NAME).toBeUndefined();
    const handler = createInboxConsumer(options());

    expect(await handler(batch, lambdaContext(clock))).toEqual({ batchItemFailures: [] });
    expect(await balances()).toEqual(['acct-1 12', 'acct-2 3']);
    expect(await countRows(db, 'inbox')).toBe(3);
  });

  it('answers a redelivery in another container as duplicates from the inbox rows, applying nothing again', async () => {
    const first = container();
    await first.invoke(batch);
    const second = container();

    expect(await second.invoke(batch)).toEqual({ batchItemFailures: [] });
    expect(second.outcomes()).toEqual([
      'orders-0@10 duplicate completed',
      'orders-0@11 duplicate completed',
      'orders-1@20 duplicate completed',
    ]);
    expect(await balances()).toEqual(['acct-1 12', 'acct-2 3']);
  });

  it('quarantines a record Postgres refuses (postgres-rejected) and one the effect rejects, in Postgres, and applies the rest', async () => {
    const consumer = container();

    const response = await consumer.invoke(
      kafkaEvent([
        orderRecord(1, { eventId: 'e1', accountId: 'acct-1', amount: 5 }),
        orderRecord(2, { eventId: 'e2', accountId: 'acct-1', amount: -50 }),
        orderRecord(3, { eventId: 'e3', accountId: 'closed', amount: 1 }),
        orderRecord(4, { eventId: 'e4', accountId: 'acct-1', amount: 1 }),
      ]),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(consumer.outcomes()).toEqual([
      'orders-0@1 processed',
      'orders-0@2 quarantined postgres-rejected',
      'orders-0@3 quarantined account-closed',
      'orders-0@4 processed',
    ]);
    expect(await balances()).toEqual(['acct-1 6', 'acct-2 0']);
    const { rows } = await db.pool.query('select quarantine_key from quarantine order by quarantine_key');
    expect(rows).toEqual([{ quarantine_key: 'orders-0@2' }, { quarantine_key: 'orders-0@3' }]);
  });

  it('deletes expired rows on DELETE_EXPIRED_ROWS_EVENT, and none before they expire', async () => {
    const consumer = container();
    await consumer.invoke(batch);

    expect(await consumer.invoke(DELETE_EXPIRED_ROWS_EVENT)).toEqual({ batchItemFailures: [] });
    expect(await countRows(db, 'inbox')).toBe(3);

    clock.advance((DEDUP_TTL_SECONDS + 1) * 1000);
    expect(await consumer.invoke({ ...DELETE_EXPIRED_ROWS_EVENT })).toEqual({ batchItemFailures: [] });
    expect(await countRows(db, 'inbox')).toBe(0);
  });
});
