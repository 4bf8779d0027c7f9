/**
 * What the Postgres store decides beyond the contract (test/integration/store/postgres-inbox-store.contract
 * .test.ts), on PGlite and Debian's Postgres: what each failure of a record's SQL answers (the SQLSTATE
 * taxonomy of lambdas/postgres/sqlstate.ts, through commit), and a group's savepoints and transactions.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEffect } from '../../../lambdas/core/effect.js';
import { EffectRejectedError } from '../../../lambdas/core/errors.js';
import type { CommitMember, CommitResult, InboxEntry } from '../../../lambdas/core/inbox-store.js';
import { POSTGRES_REJECTED } from '../../../lambdas/postgres/member-transaction.js';
import {
  MAX_RECORDS_PER_TRANSACTION,
  type PostgresInboxStore,
} from '../../../lambdas/postgres/postgres-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import {
  countRows,
  hasInboxRow,
  inboxDatabase,
  postgresStore,
  recordingPool,
} from '../../support/postgres-inbox.js';

/** An effect that writes an order, then runs `failing` (a statement, or a throw). */
const orderThen =
  (id: string, failing: SqlEffect): SqlEffect =>
  async (sql) => {
    await sql.query('insert into app_items (pk) values ($1)', [`order#${id}`]);
    await failing(sql);
  };

const statement =
  (text: string): SqlEffect =>
  async (sql) => {
    await sql.query(text);
  };

/** A PL/pgSQL raise with the SQLSTATE asked for: any class, on either server. */
const raising = (sqlstate: string) =>
  statement(`do $$ begin raise exception 'raised' using errcode = '${sqlstate}'; end $$`);

const put =
  (pk: string): SqlEffect =>
  async (sql) => {
    await sql.query('insert into app_items (pk) values ($1)', [pk]);
  };

describeOnPostgres('PostgresInboxStore', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let store: PostgresInboxStore;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    store = postgresStore(db, clock);
    await db.pool.query(`insert into accounts values ('acct-1', 100)`);
  });
  afterEach(() => db.drop());

  const hasItem = async (pk: string) =>
    (await db.pool.query('select 1 from app_items where pk = $1', [pk])).rows.length > 0;

  describe('a record whose SQL fails: its answer by SQLSTATE, nothing of it committed', () => {
    it.each([
      [
        '23505 (unique violation)',
        statement(`insert into accounts values ('acct-1', 1)`),
        /^SQLSTATE 23505: .*; constraint accounts_pkey$/,
      ],
      [
        '23514 (check violation)',
        statement(`update accounts set balance = balance - 500 where id = 'acct-1'`),
        /^SQLSTATE 23514: .*; constraint accounts_balance_check$/,
      ],
      ['22012 (division by zero)', statement('select 1 / 0'), /^SQLSTATE 22012: /],
      ['22P02 (text that is no integer)', statement(`select 'x'::int`), /^SQLSTATE 22P02: /],
      ['P0001 (a rule raised in PL/pgSQL)', raising('P0001'), /^SQLSTATE P0001: raised$/],
    ])('%s: rejected as postgres-rejected', async (_, failing, message) => {
      const result = await store.commit(entry('k1'), [], orderThen('o1', failing));

      expect(result).toEqual({
        kind: 'rejected',
        reason: POSTGRES_REJECTED,
        message: expect.stringMatching(message),
      });
      expect(await hasItem('order#o1')).toBe(false);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
      expect((await db.pool.query(`select balance from accounts`)).rows).toEqual([{ balance: 100 }]);
    });

    it.each([
      ['40001 (serialization failure)', '40001'],
      ['40P01 (deadlock)', '40P01'],
      ['55P03 (lock not available)', '55P03'],
      ['57014 (statement cancelled)', '57014'],
      ['53300 (too many connections)', '53300'],
    ])('%s: transient', async (_, sqlstate) => {
      const result = await store.commit(entry('k1'), [], orderThen('o1', raising(sqlstate)));

      expect(result).toEqual({ kind: 'transient', message: `SQLSTATE ${sqlstate}: raised` });
      expect(await hasItem('order#o1')).toBe(false);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
    });

    it('a missing table (42P01): effect-failed as systemic-store-error, never quarantined', async () => {
      const result = await store.commit(
        entry('k1'),
        [],
        orderThen('o1', statement('select * from no_such_table')),
      );

      expect(result).toEqual({
        kind: 'effect-failed',
        reason: 'systemic-store-error',
        message: expect.stringMatching(/^SQLSTATE 42P01: relation "no_such_table" does not exist$/),
      });
      expect(await hasItem('order#o1')).toBe(false);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
    });

    it('EffectRejectedError: effect-rejected with its reason and message', async () => {
      const result = await store.commit(
        entry('k1'),
        [],
        orderThen('o1', async () => {
          throw new EffectRejectedError('insufficient-funds', 'account acct-1 cannot pay 500');
        }),
      );

      expect(result).toEqual({
        kind: 'effect-rejected',
        reason: 'insufficient-funds',
        message: 'account acct-1 cannot pay 500',
      });
      expect(await hasItem('order#o1')).toBe(false);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
    });

    it('a plain Error: effect-failed as effect-error, with its message', async () => {
      const result = await store.commit(
        entry('k1'),
        [],
        orderThen('o1', async () => {
          throw new TypeError('cannot read the amount');
        }),
      );

      expect(result).toEqual({
        kind: 'effect-failed',
        reason: 'effect-error',
        message: expect.stringContaining('cannot read the amount'),
      });
      expect(await hasItem('order#o1')).toBe(false);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
    });

    it.each([
      ['23505', `insert into accounts values ('acct-1', 1)`, { kind: 'rejected', reason: POSTGRES_REJECTED }],
      ['42P01', 'select * from no_such_table', { kind: 'effect-failed', reason: 'systemic-store-error' }],
    ])(
      'an effect that catches a failed statement (%s) and returns is still failed: its transaction is aborted',
      async (_, text, answer) => {
        const result = await store.commit(
          entry('k1'),
          [],
          orderThen('o1', async (sql) => {
            await sql.query(text).catch(() => undefined);
          }),
        );

        expect(result).toMatchObject(answer);
        expect(await hasItem('order#o1')).toBe(false);
        expect(await hasInboxRow(db, 'k1')).toBe(false);
      },
    );

    it('a redelivery after any of these commits normally on the same connection pool', async () => {
      await store.commit(entry('k1'), [], orderThen('o1', statement('select 1 / 0')));
      await store.commit(entry('k1'), [], orderThen('o1', raising('40001')));

      expect(await store.commit(entry('k1'), [], put('order#o1'))).toEqual({ kind: 'committed' });
      expect(await hasItem('order#o1')).toBe(true);
    });

    it('refuses DynamoDB writes as systemic, sending nothing', async () => {
      const result = await store.commit(entry('k1'), [{ Put: { TableName: 'app', Item: { pk: 'x' } } }]);

      expect(result).toMatchObject({ kind: 'effect-failed', reason: 'systemic-store-error' });
      expect(await hasInboxRow(db, 'k1')).toBe(false);
    });
  });

  describe('a group: one transaction, a savepoint per record', () => {
    const member = (e: InboxEntry, sql?: SqlEffect): CommitMember => ({
      entry: e,
      writes: [],
      ...(sql ? { sql } : {}),
    });

    it('rolls back only the member whose SQL fails; the others commit in the same transaction', async () => {
      const pool = recordingPool(db);
      const grouped = postgresStore(db, clock, { pool });

      const results = await grouped.commitGroup([
        member(entry('k1'), put('order#1')),
        member(
          entry('k2'),
          orderThen('2', async () => {
            throw new EffectRejectedError('refused', 'no');
          }),
        ),
        member(entry('k3'), put('order#3')),
      ]);

      expect(results).toEqual([
        { kind: 'committed' },
        { kind: 'effect-rejected', reason: 'refused', message: 'no' },
        { kind: 'committed' },
      ]);
      expect([await hasItem('order#1'), await hasItem('order#2'), await hasItem('order#3')]).toEqual([
        true,
        false,
        true,
      ]);
      expect(await hasInboxRow(db, 'k2')).toBe(false);
      expect(
        pool.statements.filter((text) => /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|ROLLBACK TO)/.test(text)),
      ).toEqual([
        'BEGIN',
        'SAVEPOINT m0',
        'SAVEPOINT m1',
        'ROLLBACK TO SAVEPOINT m1',
        'SAVEPOINT m2',
        'COMMIT',
      ]);
    });

    it.each([
      [
        'in-flight',
        async (s: PostgresInboxStore) => {
          await s.claim(entry('k2'), Date.UTC(2100, 0));
          return member(entry('k2'), put('order#2'));
        },
        'in-flight',
      ],
      ['transient', async () => member(entry('k2'), orderThen('2', raising('40P01'))), 'transient'],
      ['rejected', async () => member(entry('k2'), orderThen('2', statement('select 1 / 0'))), 'rejected'],
      [
        'effect-failed',
        async () => member(entry('k2'), orderThen('2', statement('select * from no_such_table'))),
        'effect-failed',
      ],
    ])(
      'sends nothing after a member answered %s: the later ones are not-sent and write nothing',
      async (_, middle, kind) => {
        const results = await store.commitGroup([
          member(entry('k1'), put('order#1')),
          await middle(store),
          member(entry('k3'), put('order#3')),
          member(entry('k4')),
        ]);

        expect(results.map((result) => result.kind)).toEqual(['committed', kind, 'not-sent', 'not-sent']);
        expect(await hasItem('order#1')).toBe(true);
        expect(await hasItem('order#2')).toBe(false);
        expect(await hasItem('order#3')).toBe(false);
        expect(await hasInboxRow(db, 'k3')).toBe(false);
        expect(await hasInboxRow(db, 'k4')).toBe(false);
      },
    );

    /** Members that record the transaction they ran in. */
    const recordingMembers = (count: number, failAt?: number): CommitMember[] =>
      Array.from({ length: count }, (_, index) =>
        member(entry(`k${index}`), async (sql) => {
          if (index === failAt) await raising('40001')(sql);
          await sql.query(
            `insert into app_items (pk, attributes) values ($1, jsonb_build_object('tx', txid_current()))`,
            [`item#${index}`],
          );
        }),
      );

    const transactionSizes = async () => {
      const { rows } = await db.pool.query<{ n: string }>(
        `select count(*) as n from app_items group by attributes->>'tx' order by min(pk collate "C")`,
      );
      return rows.map((row) => Number(row.n)).sort((a, b) => b - a);
    };

    it(`commits a group longer than ${MAX_RECORDS_PER_TRANSACTION} records in several transactions`, async () => {
      const results = await store.commitGroup(recordingMembers(130));

      expect(results.every((result) => result.kind === 'committed')).toBe(true);
      expect(results).toHaveLength(130);
      expect(await transactionSizes()).toEqual([60, 60, 10]);
      expect(await countRows(db, 'inbox')).toBe(130);
    });

    it('stops at a member that fails in a later transaction: the earlier ones committed, none after it sent', async () => {
      const results: CommitResult[] = await store.commitGroup(recordingMembers(130, 65));

      expect(results.slice(0, 65).every((result) => result.kind === 'committed')).toBe(true);
      expect(results[65]?.kind).toBe('transient');
      expect(
        results.slice(66).every((result) => result.kind === 'not-sent' && result.reason === undefined),
      ).toBe(true);
      expect(await transactionSizes()).toEqual([60, 5]);
      expect(await countRows(db, 'inbox')).toBe(65);
    });

    it('asks mayContinue before each member after the first: false leaves the rest not-sent for the deadline', async () => {
      let asked = 0;
      const results = await store.commitGroup(recordingMembers(130), { mayContinue: () => asked++ < 0 });

      expect(asked).toBe(1);
      expect(results[0]).toEqual({ kind: 'committed' });
      expect(results.slice(1)).toEqual(
        Array.from({ length: 129 }, () => ({ kind: 'not-sent', reason: 'deadline' })),
      );
      expect(await countRows(db, 'inbox')).toBe(1);
    });
  });
});
