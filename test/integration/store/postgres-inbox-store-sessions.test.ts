/**
 * What the Postgres store does between sessions, on Debian's Postgres only (PGlite is one session): two
 * commits of one key at once, a COMMIT whose answer is lost, a statement cut by statement_timeout, a
 * connection killed mid-transaction, two groups in a deadlock.
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SqlEffect } from '../../../lambdas/core/effect.js';
import { EffectRejectedError, InboxStoreError } from '../../../lambdas/core/errors.js';
import type { CommitResult } from '../../../lambdas/core/inbox-store.js';
import { connectionPool } from '../../../lambdas/postgres/connection.js';
import type { PostgresInboxStore } from '../../../lambdas/postgres/postgres-inbox-store.js';
import { readPostgresSettings } from '../../../lambdas/postgres/postgres-settings.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnDebianPostgres, type FreshSchema } from '../../support/postgres.js';
import { CONSUMER, hasInboxRow, inboxDatabase, postgresStore } from '../../support/postgres-inbox.js';
import { startPostgresProxy } from '../../support/postgres-proxy.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeOnDebianPostgres('PostgresInboxStore between sessions', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let store: PostgresInboxStore;
  beforeEach(async () => {
    db = await inboxDatabase(target.url(), { max: 4 });
    clock = new ManualClock();
    store = postgresStore(db, clock);
    await db.pool.query(`insert into accounts values ('x', 0), ('y', 0)`);
  });
  afterEach(() => db.drop());

  /** Adds 1 to an account's balance: applied twice shows. */
  const credit =
    (account: string): SqlEffect =>
    async (sql) => {
      await sql.query(`update ${db.schema}.accounts set balance = balance + 1 where id = $1`, [account]);
    };
  const balances = async () =>
    Object.fromEntries(
      (
        await db.pool.query<{ id: string; balance: number }>('select id, balance from accounts order by id')
      ).rows.map((row) => [row.id, row.balance]),
    );
  /** Sessions of this schema's inbox statements waiting for a lock. */
  const waitingOnInbox = async () =>
    Number(
      (
        await db.pool.query<{ n: string }>(
          `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like $1`,
          [`%${db.schema}.inbox%`],
        )
      ).rows[0]?.n,
    );

  it.each([
    ['commits', 'duplicate'],
    ['rolls back', 'committed'],
  ])(
    'a second commit of a key waits on the unique index while the first is open: it %s, the second is %s',
    async (firstEnds, secondAnswer) => {
      const firstInside = deferred();
      const firstMayEnd = deferred();
      const first = store.commit(entry('k1', 'hash-1', 'orders-0@1'), [], async (sql) => {
        await credit('x')(sql);
        firstInside.resolve();
        await firstMayEnd.promise;
        if (firstEnds === 'rolls back') throw new EffectRejectedError('refused', 'first attempt refused');
      });
      await firstInside.promise;
      let secondRan = false;
      const second = store.commit(entry('k1', 'hash-1', 'orders-1@1'), [], async (sql) => {
        secondRan = true;
        await credit('x')(sql);
      });

      await waitFor(async () => (await waitingOnInbox()) === 1, 'the second insert to wait on the first');
      expect(secondRan).toBe(false);
      firstMayEnd.resolve();

      const results = await Promise.all([first, second]);
      expect(results.map((result) => result.kind)).toEqual([
        firstEnds === 'commits' ? 'committed' : 'effect-rejected',
        secondAnswer,
      ]);
      expect(secondRan).toBe(firstEnds === 'rolls back');
      expect(await balances()).toEqual({ x: 1, y: 0 });
    },
  );

  it('a COMMIT whose answer is lost: the store throws, and the redelivery finds the row, the effect applied once', async () => {
    const proxy = await startPostgresProxy(target.url());
    const proxied = new pg.Pool({ connectionString: proxy.url, max: 1 });
    proxied.on('error', () => undefined);
    try {
      const viaProxy = postgresStore(db, clock, { pool: proxied });
      proxy.loseNextCommitAnswer();

      const lost = viaProxy.commit(entry('k1', 'hash-1', 'orders-0@1'), [], credit('x'));

      await expect(lost).rejects.toBeInstanceOf(InboxStoreError);
      expect(await hasInboxRow(db, 'k1')).toBe(true);
      expect(await viaProxy.commit(entry('k1', 'hash-1', 'orders-0@1'), [], credit('x'))).toMatchObject({
        kind: 'duplicate',
        existing: { source: 'orders-0@1' },
      });
      expect(await balances()).toEqual({ x: 1, y: 0 });
    } finally {
      await proxied.end();
      await proxy.close();
    }
  });

  it('a statement cut by the pool settings statement_timeout (57014) is transient, nothing committed', async () => {
    const settings = readPostgresSettings(
      { auth: 'url', url: target.url(), statementTimeoutMs: 200, schema: db.schema },
      {},
    );
    const pool = connectionPool(settings, {
      consumer: CONSUMER,
      concurrency: 1,
      credentials: () => Promise.reject(new Error('url authentication needs no credentials')),
    });
    try {
      const timed = postgresStore(db, clock, { pool });

      const result = await timed.commit(entry('k1'), [], async (sql) => {
        await credit('x')(sql);
        await sql.query('select pg_sleep(5)');
      });

      expect(result).toEqual({
        kind: 'transient',
        message: 'SQLSTATE 57014: canceling statement due to statement timeout',
      });
      expect(await hasInboxRow(db, 'k1')).toBe(false);
      expect(await balances()).toEqual({ x: 0, y: 0 });
      expect(await timed.commit(entry('k1'), [], credit('x'))).toEqual({ kind: 'committed' });
    } finally {
      await pool.end();
    }
  });

  it.each([
    ['while a statement of its runs', true],
    ['between its statements', false],
  ])(
    'a connection killed mid-transaction, %s: InboxStoreError, nothing committed',
    async (_, duringStatement) => {
      const killed = store.commit(entry('k1'), [], async (sql) => {
        await credit('x')(sql);
        const { rows } = await sql.query<{ pid: number }>('select pg_backend_pid() as pid');
        const pid = rows[0]?.pid;
        if (duringStatement) {
          const sleeping = sql.query('select pg_sleep(5)');
          // Awaited below, once the backend is killed: handled meanwhile.
          sleeping.catch(() => undefined);
          await waitFor(
            async () =>
              (
                await db.pool.query(
                  `select 1 from pg_stat_activity where pid = $1 and query like 'select pg_sleep%'`,
                  [pid],
                )
              ).rows.length > 0,
            'the sleep to start',
          );
          await db.pool.query('select pg_terminate_backend($1)', [pid]);
          await sleeping;
        } else {
          await db.pool.query('select pg_terminate_backend($1)', [pid]);
          await waitFor(
            async () =>
              (await db.pool.query('select 1 from pg_stat_activity where pid = $1', [pid])).rows.length === 0,
            'the backend to end',
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          await credit('y')(sql);
        }
      });

      await expect(killed).rejects.toBeInstanceOf(InboxStoreError);
      expect(await hasInboxRow(db, 'k1')).toBe(false);
      expect(await balances()).toEqual({ x: 0, y: 0 });
      expect(await store.commit(entry('k1'), [], credit('x'))).toEqual({ kind: 'committed' });
    },
  );

  it('two groups in a deadlock: one member of one group is transient, everything else commits', async () => {
    const aLocked = deferred();
    const bLocked = deferred();
    const lockThenWait =
      (account: string, locked: () => void, other: Promise<void>): SqlEffect =>
      async (sql) => {
        await credit(account)(sql);
        locked();
        await other;
      };
    const member = (key: string, sql: SqlEffect) => ({ entry: entry(key), writes: [], sql });

    const results: CommitResult[][] = await Promise.all([
      store.commitGroup([
        member('a1', lockThenWait('x', aLocked.resolve, bLocked.promise)),
        member('a2', credit('y')),
      ]),
      store.commitGroup([
        member('b1', lockThenWait('y', bLocked.resolve, aLocked.promise)),
        member('b2', credit('x')),
      ]),
    ]);

    const kinds = results.map((group) => group.map((result) => result.kind));
    expect(kinds.sort()).toEqual([
      ['committed', 'committed'],
      ['committed', 'transient'],
    ]);
    expect(results.flat().find((result) => result.kind === 'transient')).toMatchObject({
      message: expect.stringMatching(/^SQLSTATE 40P01: deadlock detected/),
    });
    // Three credits landed: both first members and the second member of the group that won.
    const { x, y } = await balances();
    expect((x ?? 0) + (y ?? 0)).toBe(3);
  });
});
