/**
 * The local Postgres servers the Postgres store is tested against (test/support/postgres.ts): what the
 * store relies on works through the `pg` driver on each, and what only a real server does (concurrent
 * sessions, statement_timeout) works on Debian's.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import {
  describeOnDebianPostgres,
  describeOnPostgres,
  type FreshSchema,
  freshSchema,
} from '../../support/postgres.js';
import { isAlive } from '../../support/processes.js';

/** The `code` of a rejected query, or 'resolved'. */
async function errorCodeOf(query: Promise<unknown>): Promise<string> {
  return query.then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code),
  );
}

describeOnPostgres('a local Postgres', (target) => {
  let db: FreshSchema;
  beforeEach(async () => {
    db = await freshSchema(target.url());
    await db.pool.query('create table inbox (key text primary key, value int not null)');
  });
  afterEach(() => db.drop());

  it('is the server it claims to be', async () => {
    const { rows } = await db.pool.query<{ version: string }>('select version()');
    expect(rows[0]?.version.includes('PGlite')).toBe(target.kind === 'pglite');
  });

  it('answers select 1, with a parameter through the extended protocol', async () => {
    const { rows } = await db.pool.query<{ one: number }>('select $1::int as one', [1]);
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('rolls back to a savepoint and commits the rest of the transaction', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`insert into inbox values ('a', 1)`);
      await client.query('savepoint before_b');
      await client.query(`insert into inbox values ('b', 2)`);
      await client.query('rollback to savepoint before_b');
      await client.query(`insert into inbox values ('c', 3)`);
      await client.query('commit');
    } finally {
      client.release();
    }
    const { rows } = await db.pool.query('select key from inbox order by key');
    expect(rows).toEqual([{ key: 'a' }, { key: 'c' }]);
  });

  it('returns the inserted row from INSERT ... ON CONFLICT DO NOTHING RETURNING, and no row for a duplicate', async () => {
    const insert = `insert into inbox values ($1, $2) on conflict (key) do nothing returning key, value`;
    expect((await db.pool.query(insert, ['k', 1])).rows).toEqual([{ key: 'k', value: 1 }]);
    expect((await db.pool.query(insert, ['k', 2])).rows).toEqual([]);
    expect((await db.pool.query('select value from inbox')).rows).toEqual([{ value: 1 }]);
  });

  it('reports a unique violation as 23505, with the constraint, and keeps the session usable', async () => {
    await db.pool.query(`insert into inbox values ('k', 1)`);
    const duplicate = db.pool.query(`insert into inbox values ('k', 2)`);
    await expect(duplicate).rejects.toMatchObject({ code: '23505', constraint: 'inbox_pkey' });
    expect((await db.pool.query('select count(*)::int as n from inbox')).rows).toEqual([{ n: 1 }]);
  });

  it("puts unqualified names in the test's schema", async () => {
    const { rows } = await db.pool.query(
      'select table_schema from information_schema.tables where table_name = $1',
      ['inbox'],
    );
    expect(rows).toEqual([{ table_schema: db.schema }]);
  });

  it("gives the next test an empty schema: the last one's drop took its tables", async () => {
    await db.drop();
    db = await freshSchema(target.url());
    expect(await errorCodeOf(db.pool.query('select * from inbox'))).toBe('42P01');
  });

  it.runIf(target.kind === 'pglite')(
    'lets a new pool connect as soon as the last one ended (PGlite: one connection at a time)',
    async () => {
      await db.drop();
      for (let round = 0; round < 20; round += 1) {
        const pool = new pg.Pool({ connectionString: target.url(), max: 1 });
        try {
          expect((await pool.query('select $1::int as round', [round])).rows).toEqual([{ round }]);
        } finally {
          await pool.end();
        }
      }
      db = await freshSchema(target.url());
    },
  );

  it.runIf(target.kind === 'pglite')(
    'refuses a second connection while one is open with 53300, saying why (PGlite: one session)',
    async () => {
      const held = await db.pool.connect();
      const second = new pg.Client({ connectionString: target.url() });
      second.on('error', () => undefined);
      try {
        await expect(second.connect()).rejects.toMatchObject({
          code: '53300',
          message: expect.stringContaining('pool of max 1'),
        });
      } finally {
        held.release();
        await second.end().catch(() => undefined);
      }
    },
  );

  it.runIf(target.kind === 'pglite')('ignores statement_timeout (PGlite: a documented gap)', async () => {
    const client = await db.pool.connect();
    try {
      await client.query(`set statement_timeout = '50ms'`);
      expect(await errorCodeOf(client.query('select pg_sleep(0.3)'))).toBe('resolved');
    } finally {
      await client.query('reset statement_timeout');
      client.release();
    }
  });
});

describeOnDebianPostgres('a local Postgres with concurrent sessions', (target) => {
  let db: FreshSchema;
  beforeEach(async () => {
    db = await freshSchema(target.url(), { max: 3 });
    await db.pool.query('create table inbox (key text primary key)');
  });
  afterEach(() => db.drop());

  it('makes a second insert of a key wait for the first transaction, then fail with 23505 once it commits', async () => {
    const first = await db.pool.connect();
    const second = await db.pool.connect();
    try {
      await first.query('begin');
      await first.query(`insert into inbox values ('k')`);
      const { rows } = await second.query<{ pid: number }>('select pg_backend_pid() as pid');
      const blocked = errorCodeOf(second.query(`insert into inbox values ('k')`));
      // Waiting on the first transaction's row lock, as the server itself reports it.
      await expect
        .poll(async () => {
          const waits = await db.pool.query('select wait_event_type from pg_stat_activity where pid = $1', [
            rows[0]?.pid,
          ]);
          return waits.rows[0]?.wait_event_type;
        })
        .toBe('Lock');
      await first.query('commit');
      expect(await blocked).toBe('23505');
    } finally {
      first.release();
      second.release();
    }
  });

  it('keeps two schemas with the same table name apart', async () => {
    const other = await freshSchema(target.url());
    try {
      await other.pool.query('create table inbox (key text primary key)');
      await other.pool.query(`insert into inbox values ('only-in-other')`);
      expect((await db.pool.query('select count(*)::int as n from inbox')).rows).toEqual([{ n: 0 }]);
    } finally {
      await other.drop();
    }
  });

  it('cancels a statement past statement_timeout with 57014', async () => {
    const client = await db.pool.connect();
    try {
      await client.query(`set statement_timeout = '100ms'`);
      expect(await errorCodeOf(client.query('select pg_sleep(10)'))).toBe('57014');
    } finally {
      await client.query('reset statement_timeout');
      client.release();
    }
  });
});

describeOnDebianPostgres('a local Postgres whose owner dies', () => {
  const owners: ChildProcess[] = [];
  afterAll(() => {
    for (const owner of owners) if (owner.exitCode === null) owner.kill('SIGKILL');
  });

  it('ends with its owner when the owner is killed with SIGKILL', async () => {
    const owner = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/integration/postgres/fixtures/debian-postgres-owner.ts'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    owners.push(owner);
    const [line] = (await once(
      createInterface({ input: owner.stdout as NodeJS.ReadableStream }),
      'line',
    )) as [string];
    const { url } = JSON.parse(line) as { url: string };
    const postmaster = postmasterOn(new URL(url).port);
    expect(postmaster).toBeDefined();

    owner.kill('SIGKILL');
    await once(owner, 'exit');

    await expect.poll(() => isAlive(postmaster ?? -1), { timeout: 15_000 }).toBe(false);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    expect(await errorCodeOf(client.connect())).toBe('ECONNREFUSED');
  });
});

/** The pid of the postgres server listening on this port, read from `ps`. */
function postmasterOn(port: string): number | undefined {
  const line = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .find((args) => /\/postgres -D /.test(args) && args.includes(` -p ${port} `));
  return line === undefined ? undefined : Number.parseInt(line.trim(), 10);
}
