/**
 * How the Postgres store's COMMIT is judged, on PGlite and Debian's Postgres: a COMMIT refused for a deferred
 * constraint (no member can be named: each goes again alone), a COMMIT that answers ROLLBACK (a statement
 * failed that the store never saw), statements that would end the store's transaction, and the deadline
 * asked before each member of a group.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SqlEffect } from '../../../lambdas/core/effect.js';
import type { CommitMember, InboxEntry } from '../../../lambdas/core/inbox-store.js';
import { POSTGRES_REJECTED } from '../../../lambdas/postgres/member-transaction.js';
import type { PostgresInboxStore } from '../../../lambdas/postgres/postgres-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { hasInboxRow, inboxDatabase, postgresStore } from '../../support/postgres-inbox.js';

const member = (e: InboxEntry, sql: SqlEffect): CommitMember => ({ entry: e, writes: [], sql });

/** A child row whose parent must exist by COMMIT (a deferred foreign key). */
const child =
  (id: string, parent: string, withParent: boolean): SqlEffect =>
  async (sql) => {
    if (withParent) await sql.query('insert into parents values ($1)', [parent]);
    await sql.query('insert into children values ($1, $2)', [id, parent]);
  };

describeOnPostgres('PostgresInboxStore, its COMMIT', (target) => {
  let db: FreshSchema;
  let store: PostgresInboxStore;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    store = postgresStore(db, new ManualClock());
    await db.pool.query(`create table parents (id text primary key);
      create table children (id text primary key,
        parent text references parents (id) deferrable initially deferred)`);
  });
  afterEach(() => db.drop());

  const children = async () =>
    (await db.pool.query<{ id: string }>('select id from children order by id')).rows.map((row) => row.id);

  it('goes one by one when a deferred constraint refuses the COMMIT of a group: only the member that breaks it is refused', async () => {
    const results = await store.commitGroup([
      member(entry('k1'), child('c1', 'p1', true)),
      member(entry('k2'), child('c2', 'missing', false)),
      member(entry('k3'), child('c3', 'p3', true)),
    ]);

    expect(results[0]).toEqual({ kind: 'committed' });
    expect(results[1]).toEqual({
      kind: 'rejected',
      reason: POSTGRES_REJECTED,
      message: expect.stringMatching(/^SQLSTATE 23503: /),
    });
    // A refusal may end reported (the refusal streak): nothing after it is sent, as in any group.
    expect(results[2]).toEqual({ kind: 'not-sent' });
    expect(await children()).toEqual(['c1']);
    expect(await hasInboxRow(db, 'k2')).toBe(false);
  });

  it('answers transient, nothing committed, when COMMIT answers ROLLBACK after a statement the effect did not await failed', async () => {
    const result = await store.commit(entry('k1'), [], async (sql) => {
      await sql.query('insert into parents values ($1)', ['p1']);
      // Not awaited: it fails after the effect returned, aborting the transaction behind the store's back.
      void sql.query('select 1 / 0').catch(() => undefined);
    });

    expect(result).toEqual({
      kind: 'transient',
      message: expect.stringMatching(/^COMMIT answered ROLLBACK/),
    });
    expect(await hasInboxRow(db, 'k1')).toBe(false);
    expect((await db.pool.query('select id from parents')).rows).toEqual([]);
  });

  it.each(['COMMIT', 'rollback', '  SAVEPOINT mine', 'BEGIN', 'release savepoint m0'])(
    'refuses %s inside a sql effect: the store owns the transaction; nothing of the record is committed',
    async (text) => {
      const result = await store.commit(entry('k1'), [], async (sql) => {
        await sql.query('insert into parents values ($1)', ['p1']);
        await sql.query(text);
      });

      expect(result).toEqual({
        kind: 'effect-failed',
        reason: 'effect-error',
        message: expect.stringContaining('the store owns the transaction'),
      });
      expect(await hasInboxRow(db, 'k1')).toBe(false);
      expect((await db.pool.query('select id from parents')).rows).toEqual([]);
    },
  );

  it('asks mayContinue before each member of a transaction: the members before it commit, the rest wait for the deadline', async () => {
    let asked = 0;
    const results = await store.commitGroup(
      [
        member(entry('k1'), child('c1', 'p1', true)),
        member(entry('k2'), child('c2', 'p2', true)),
        member(entry('k3'), child('c3', 'p3', true)),
      ],
      { mayContinue: () => asked++ < 1 },
    );

    expect(results).toEqual([
      { kind: 'committed' },
      { kind: 'committed' },
      { kind: 'not-sent', reason: 'deadline' },
    ]);
    expect(await children()).toEqual(['c1', 'c2']);
  });
});
