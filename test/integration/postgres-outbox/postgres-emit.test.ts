/**
 * A `sql` plan that emits, through the front door with the Postgres store: its events are inserted in the
 * transaction of its inbox row and its SQL, with seqs in commit order per key; a record rolled back, or
 * answered as a duplicate, emits nothing (docs/postgres.md#outbox). On PGlite and Debian's Postgres.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import {
  EffectRejectedError,
  type InboxConsumerOptions,
  type RecordOutcome,
} from '../../../lambdas/core/index.js';
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import { postgresInbox } from '../../../lambdas/postgres/index.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { countRows, inboxDatabase } from '../../support/postgres-inbox.js';
import { EMITTER, shown } from './outbox-harness.js';

interface Order {
  readonly event_id: string;
  readonly account_id: string;
  readonly amount: number;
}

describeOnPostgres('a sql plan that emits, with postgresInbox', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let relay: OutboxRelayQueries;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    relay = new OutboxRelayQueries({ schema: db.schema, clock });
    await db.pool.query(`insert into accounts values ('acct-1', 0), ('acct-2', 0), ('closed', 0)`);
  });
  afterEach(() => db.drop());

  /**
   * Credits the order and asks for its payment on the account's key. A closed account is refused by the
   * effect after its UPDATE; a negative amount breaks the accounts CHECK (23514).
   */
  const effect: InboxConsumerOptions['effect'] = ({ event }) => {
    const order = event as Order;
    return {
      kind: 'sql',
      run: async (sql) => {
        await sql.query('update accounts set balance = balance + $1 where id = $2', [
          order.amount,
          order.account_id,
        ]);
        if (order.account_id === 'closed')
          throw new EffectRejectedError('account-closed', 'the account is closed');
      },
      emit: [
        {
          topic: 'payments',
          key: order.account_id,
          value: `pay ${order.event_id}`,
          headers: { type: 'PaymentRequested' },
        },
      ],
    };
  };

  const consumer = (groupSize = 100) => {
    let outcomes: readonly RecordOutcome[] = [];
    const handler = createObservedInboxConsumer(
      {
        store: postgresInbox({ pool: db.pool, settings: { schema: db.schema } }),
        effect,
        settings: { consumerName: EMITTER, transactGroupMaxRecords: groupSize },
        logger: new Logger({ logLevel: 'SILENT' }),
      },
      { clock, observe: { batchProcessed: (_summary, batch) => (outcomes = batch) } },
    );
    return {
      invoke: (event: unknown) => handler(event, lambdaContext(clock)),
      outcomes: () =>
        outcomes.map((o) => `${o.partitionKey}@${o.offset} ${o.status}${o.reason ? ` ${o.reason}` : ''}`),
    };
  };
  const pending = () => relay.listPending(db.pool, { limit: 100 });
  const balances = async () =>
    (await db.pool.query('select id, balance from accounts order by id')).rows.map(
      (row) => `${row.id} ${row.balance}`,
    );

  const batch = kafkaEvent([
    orderRecord(10, { eventId: 'e1', accountId: 'acct-1', amount: 5 }),
    orderRecord(11, { eventId: 'e2', accountId: 'acct-1', amount: 7 }),
    orderRecord(20, { eventId: 'e3', accountId: 'acct-2', amount: 3 }, 1),
  ]);

  it('commits each record’s events with its inbox row and SQL, seqs in offset order per key', async () => {
    const orders = consumer();
    expect(await orders.invoke(batch)).toEqual({ batchItemFailures: [] });

    expect(await balances()).toEqual(['acct-1 12', 'acct-2 3', 'closed 0']);
    const events = await pending();
    expect(shown(events).sort()).toEqual(['acct-1 1 pay e1', 'acct-1 2 pay e2', 'acct-2 1 pay e3']);
    const { rows } = await db.pool.query('select dedup_key from inbox order by dedup_key');
    expect(events.map((event) => event.source).sort()).toEqual(rows.map((row) => row.dedup_key));
    for (const event of events) {
      expect(event).toMatchObject({
        id: outboxEventId(EMITTER, event.source, 0),
        consumer: EMITTER,
        topic: 'payments',
        headers: { type: 'PaymentRequested' },
        committedAt: clock.nowMs(),
      });
    }
  });

  it.each([
    ['grouped, a savepoint each', 100],
    ['one by one, a transaction each', 1],
  ])(
    'a record rolled back takes its events along: a refused statement, EffectRejectedError (%s)',
    async (_how, groupSize) => {
      const orders = consumer(groupSize);
      // The refused statement last: a group sends nothing after a record Postgres refused.
      await orders.invoke(
        kafkaEvent([
          orderRecord(1, { eventId: 'e1', accountId: 'acct-1', amount: 5 }),
          orderRecord(2, { eventId: 'e2', accountId: 'closed', amount: 1 }),
          orderRecord(3, { eventId: 'e3', accountId: 'acct-1', amount: 1 }),
          orderRecord(4, { eventId: 'e4', accountId: 'acct-1', amount: -50 }),
        ]),
      );

      expect(orders.outcomes()).toEqual([
        'orders-0@1 processed',
        'orders-0@2 quarantined account-closed',
        'orders-0@3 processed',
        'orders-0@4 quarantined postgres-rejected',
      ]);
      // The key's seqs go on where the committed events left them: a rolled-back record's seq is not used.
      expect(shown(await pending())).toEqual(['acct-1 1 pay e1', 'acct-1 2 pay e3']);
      expect(await countRows(db, 'outbox_keys')).toBe(1);
    },
  );

  it('emits nothing for a redelivery: each record is a duplicate of its inbox row', async () => {
    await consumer().invoke(batch);
    const before = shown(await pending());

    // With a new record in the batch, so the duplicates' transaction commits.
    const again = consumer();
    const redelivery = kafkaEvent([
      orderRecord(10, { eventId: 'e1', accountId: 'acct-1', amount: 5 }),
      orderRecord(11, { eventId: 'e2', accountId: 'acct-1', amount: 7 }),
      orderRecord(12, { eventId: 'e4', accountId: 'acct-1', amount: 1 }),
    ]);
    expect(await again.invoke(redelivery)).toEqual({ batchItemFailures: [] });
    expect(again.outcomes()).toEqual([
      'orders-0@10 duplicate completed',
      'orders-0@11 duplicate completed',
      'orders-0@12 processed',
    ]);
    // The key rows too: an event of an id already pending is absorbed by the outbox's key, a seq taken shows.
    expect(shown(await pending()).sort()).toEqual([...before, 'acct-1 3 pay e4'].sort());
    const { rows } = await db.pool.query('select kafka_key, last_seq from outbox_keys order by kafka_key');
    expect(rows).toEqual([
      { kafka_key: 'acct-1', last_seq: '3' },
      { kafka_key: 'acct-2', last_seq: '1' },
    ]);
  });

  it('reports a record whose events find no outbox table (migration 3 missing) and applies none of it', async () => {
    await db.pool.query('drop table outbox_keys');
    const orders = consumer();

    const response = await orders.invoke(kafkaEvent([orderRecord(1, { eventId: 'e1', amount: 5 })]));

    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 1 } }],
    });
    expect(orders.outcomes()).toEqual(['orders-0@1 failed systemic-store-error']);
    expect(await balances()).toEqual(['acct-1 0', 'acct-2 0', 'closed 0']);
    expect(await countRows(db, 'inbox')).toBe(0);
    expect(await countRows(db, 'quarantine')).toBe(0);
  });
});
