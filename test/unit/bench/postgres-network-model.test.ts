import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { holdUntil } from '../../../bench/measure/hold-until.js';
import { StatementCounter, statementKind } from '../../../bench/measure/statement-counter.js';
import { modelledConnections, modelledQuery } from '../../../bench/postgres/postgres-network-model.js';

/**
 * A client whose server answers after `serverMs`, or refuses statements starting with FAIL. The server's
 * time is held by holdUntil, not a bare setTimeout: a timer may fire up to a millisecond early by
 * performance.now() (CI once saw 59.7 ms for 60), which would fail the lower bounds below for no fault of
 * the model.
 */
function fakeClient(serverMs = 0): Pick<PoolClient, 'query'> & { readonly sent: string[] } {
  const sent: string[] = [];
  const query = async (text: string) => {
    sent.push(text);
    if (serverMs > 0) await holdUntil(performance.now() + serverMs);
    if (text.startsWith('FAIL')) throw Object.assign(new Error('refused'), { code: '23505' });
    return { rows: [], rowCount: 0 };
  };
  return { query: query as unknown as PoolClient['query'], sent };
}

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

describe('the Postgres round-trip model', () => {
  it('holds each statement until rttMs has passed since it was sent', async () => {
    const query = modelledQuery(fakeClient(), { rttMs: 25, counter: new StatementCounter() });
    for (const text of ['BEGIN', 'INSERT INTO s.inbox VALUES (1)', 'COMMIT']) {
      expect(await timed(() => query(text) as Promise<unknown>)).toBeGreaterThanOrEqual(25);
    }
  });

  it('holds an error as long, and counts it as failed', async () => {
    const counter = new StatementCounter();
    const query = modelledQuery(fakeClient(), { rttMs: 25, counter });
    let error: unknown;
    const elapsed = await timed(async () => {
      error = await (query('FAIL please') as Promise<unknown>).catch((caught: unknown) => caught);
    });
    expect(elapsed).toBeGreaterThanOrEqual(25);
    expect((error as { code?: string }).code).toBe('23505');
    expect(counter.tally()).toMatchObject({ requests: 1, refused: 1 });
  });

  it('adds nothing to a server slower than the round trip: the hold runs from when the statement was sent', async () => {
    const query = modelledQuery(fakeClient(60), { rttMs: 10, counter: new StatementCounter() });
    const elapsed = await timed(() => query('SELECT 1') as Promise<unknown>);
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeLessThan(60 + 10 + 40);
  });

  it('lets statements of different connections overlap, as a network does', async () => {
    const counter = new StatementCounter();
    const first = modelledQuery(fakeClient(), { rttMs: 60, counter });
    const second = modelledQuery(fakeClient(), { rttMs: 60, counter });
    const elapsed = await timed(() => Promise.all([first('SELECT 1'), second('SELECT 2')]));
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeLessThan(2 * 60);
  });

  it('at rttMs 0 holds nothing but still counts', async () => {
    const counter = new StatementCounter();
    const query = modelledQuery(fakeClient(), { rttMs: 0, counter });
    expect(await timed(() => query('BEGIN') as Promise<unknown>)).toBeLessThan(20);
    expect(counter.tally().requests).toBe(1);
  });

  it("counts a grouped transaction's statements and its one transaction, by kind", async () => {
    const counter = new StatementCounter();
    const query = modelledQuery(fakeClient(), { rttMs: 0, counter });
    const statements = [
      'BEGIN',
      'SAVEPOINT m0',
      'INSERT INTO bench_1.inbox AS existing VALUES ($1)',
      'INSERT INTO bench_1.accounts (account_id, balance) VALUES ($1, -$2::bigint)',
      'INSERT INTO bench_1.orders (order_id, total, status) VALUES ($1, $2, $3)',
      'SAVEPOINT m1',
      'INSERT INTO bench_1.inbox AS existing VALUES ($1)',
      'INSERT INTO bench_1.accounts (account_id, balance) VALUES ($1, -$2::bigint)',
      'INSERT INTO bench_1.orders (order_id, total, status) VALUES ($1, $2, $3)',
      'COMMIT',
    ];
    for (const text of statements) await query(text);
    expect(counter.tally()).toEqual({
      requests: 10,
      refused: 0,
      transactions: 1,
      wcu: 0,
      byCommand: {
        BEGIN: 1,
        SAVEPOINT: 2,
        'INSERT inbox': 2,
        'INSERT accounts': 2,
        'INSERT orders': 2,
        COMMIT: 1,
      },
    });
    counter.reset();
    expect(counter.tally().requests).toBe(0);
  });

  it('reads a statement given as a config object', async () => {
    const counter = new StatementCounter();
    const query = modelledQuery(
      { query: (async () => ({ rows: [] })) as unknown as PoolClient['query'] },
      { rttMs: 0, counter },
    );
    await query({ text: 'BEGIN' });
    expect(counter.tally()).toMatchObject({ requests: 1, transactions: 1 });
  });

  it('wraps a pooled client once, however often the pool hands it out', async () => {
    const counter = new StatementCounter();
    const client = fakeClient() as unknown as PoolClient;
    const source = modelledConnections(
      { connect: async () => client, end: async () => undefined },
      { rttMs: 0, counter },
    );
    await (await source.connect()).query('BEGIN');
    await (await source.connect()).query('COMMIT');
    expect(counter.tally().requests).toBe(2);
  });
});

describe('statementKind', () => {
  it('names the verb, and the table a write touches without its schema', () => {
    expect(statementKind('  begin')).toBe('BEGIN');
    expect(statementKind('ROLLBACK TO SAVEPOINT m3')).toBe('ROLLBACK');
    expect(statementKind('UPDATE s.inbox SET status = $1')).toBe('UPDATE inbox');
    expect(statementKind('DELETE FROM s.inbox WHERE x')).toBe('DELETE inbox');
    expect(statementKind('SELECT 1 FROM s.inbox')).toBe('SELECT');
    expect(statementKind('')).toBe('(empty)');
  });
});
