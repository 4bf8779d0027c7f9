/**
 * The quarantine commands on a Postgres inbox (`--postgres URL --schema S`), on rows a real consumer on the
 * Postgres store quarantined (fixtures/sql-orders-handler.ts): list, show, replay (applied, duplicate,
 * quarantined again, failed, a parked row finished), discard, and the guards that keep two operators from
 * overwriting each other. The same rules as on DynamoDB (quarantine-commands.test.ts,
 * replay-and-discard.test.ts); what differs is where the rows are.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaBatchResponse, KafkaEvent } from '../../../lambdas/core/kafka-event.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { getRow } from '../../../operator/operator-inbox.js';
import { PostgresOperatorInbox } from '../../../operator/postgres-operator-inbox.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { type LocalPostgres, startLocalPostgres } from '../../support/local-postgres.js';
import { appliedOrdersSql } from './fixtures/applied-orders.js';
import { CONSUMER, deliver } from './operator-harness.js';
import {
  pgOperator,
  quarantineRowOf,
  SQL_HANDLER_FILE,
  sqlAppliedCountOf,
  useSqlConsumerEnvironment,
} from './postgres-harness.js';

const SCHEMA = 'operator_quarantine';
let postgres: LocalPostgres;
let consumer: (event: KafkaEvent, context: Context) => Promise<KafkaBatchResponse>;

const run = (...argv: string[]) => pgOperator(postgres.url, SCHEMA, argv);
const answering = (answer: string | undefined, ...argv: string[]) =>
  pgOperator(postgres.url, SCHEMA, argv, answer);
const row = (id: string) => quarantineRowOf(postgres.pool, SCHEMA, id);
const parkedRow = (id: string) => quarantineRowOf(postgres.pool, SCHEMA, id, 'quarantine_replaying');
const appliedCount = (eventId: string) => sqlAppliedCountOf(postgres.pool, SCHEMA, eventId);
const listed = async (...argv: string[]) =>
  JSON.parse((await run('quarantine', 'list', '--json', ...argv)).out) as {
    total: number;
    countsByReason: Record<string, number>;
    rows: { id: string; dedupKey?: string; replaying: boolean }[];
  };
const listedIds = async (...argv: string[]) => (await listed(...argv)).rows.map((r) => r.id);
const replay = async (...argv: string[]) => {
  const result = await run('quarantine', 'replay', '--handler', SQL_HANDLER_FILE, '--json', ...argv);
  const parsed = JSON.parse(result.out) as { results: { id: string; outcome: string; detail: string }[] };
  return { code: result.code, results: parsed.results };
};
/** An inbox of the operator's own, as a second operator's command holds one. */
const operatorInbox = () =>
  new PostgresOperatorInbox({
    connections: postgres.pool,
    schema: SCHEMA,
    consumer: CONSUMER,
    where: 'test',
    advice: () => undefined,
    handlerVariables: {},
  });

const POISON = [
  { offset: 10, value: { event_id: 'e10', amount: 500 }, headers: { trace: 'abc' } },
  { offset: 11, value: { amount: 5 } },
  { offset: 12, value: { event_id: 'e12', amount: 600 } },
  { offset: 13, value: { event_id: 'e13', amount: 700 } },
  { offset: 14, value: { event_id: 'e14', amount: 800 } },
  { offset: 15, value: { event_id: 'e15', amount: 900 } },
  { offset: 16, value: { event_id: 'e16', amount: 300 } },
  { offset: 17, value: { event_id: 'e17', amount: 300 } },
  { offset: 18, value: { event_id: 'e18', amount: 300 } },
];

beforeAll(async () => {
  postgres = await startLocalPostgres();
  expect((await run('postgres', 'migrate')).code).toBe(0);
  await postgres.pool.query(appliedOrdersSql(SCHEMA));
  useSqlConsumerEnvironment(postgres.url, SCHEMA);
  consumer = (await import('./fixtures/sql-orders-handler.js')).handler;
  // One batch each, so their quarantined_at differ.
  for (const spec of POISON) {
    expect((await deliver(kafkaEvent([spec]), Date.now(), consumer)).batchItemFailures).toEqual([]);
    await sleep(3);
  }
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('quarantine list and show on Postgres', () => {
  it('lists every quarantined record newest first, with the counts per reason', async () => {
    const all = await listed();
    expect(all.rows.map((r) => r.id)).toEqual(POISON.map((p) => `orders-0@${p.offset}`).reverse());
    expect(all.countsByReason).toEqual({ 'invalid-event': 8, 'missing-event-id': 1 });
    expect(all.rows.find((r) => r.id === 'orders-0@10')?.dedupKey).toBe('e10');
    expect(await listedIds('--reason', 'missing-event-id')).toEqual(['orders-0@11']);
    const limited = await listed('--limit', '2');
    expect({ rows: limited.rows.length, total: limited.total }).toEqual({ rows: 2, total: 9 });
    const since = (await row('orders-0@17'))?.quarantined_at as number;
    expect(await listedIds('--since', new Date(since).toISOString())).toEqual(['orders-0@18', 'orders-0@17']);
  });

  it('shows a row and its record decoded', async () => {
    const shown = JSON.parse((await run('quarantine', 'show', 'orders-0@10', '--json')).out);
    expect(shown.record.value).toEqual({ json: { event_id: 'e10', amount: 500 } });
    expect(shown.record.headers).toEqual([{ name: 'trace', text: 'abc' }]);
    expect(shown.row).toMatchObject({ reason: 'invalid-event', status: 'QUARANTINED' });
    expect((await run('quarantine', 'show', 'orders-0@10')).out).toMatch(/^value\s+JSON, 31 B$/m);
  });

  it('refuses an id that has no row, in one line naming the schema', async () => {
    const missing = run('quarantine', 'show', 'orders-0@999');
    await expect(missing).rejects.toThrow(UserError);
    await expect(missing).rejects.toThrow(
      /^no quarantine row orders-0@999 for consumer orders in schema operator_quarantine at 127\.0\.0\.1:\d+\/postgres: /,
    );
  });
});

describe('quarantine replay on Postgres', () => {
  it('changes nothing with --dry-run', async () => {
    const before = await row('orders-0@10');
    const { code, results } = await replay('orders-0@10', '--dry-run');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'would-replay' });
    expect(await row('orders-0@10')).toEqual(before);
  });

  it('keeps a record its consumer still refuses in the listing, recording the replay (exit 1)', async () => {
    const before = await row('orders-0@10');
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 1, outcome: 'quarantined-again' });
    const after = await row('orders-0@10');
    expect(after).toMatchObject({
      column_status: 'QUARANTINED',
      reason: 'invalid-event',
      replay_attempts: 1,
      replay_outcome: 'quarantined-again',
      quarantined_since: before?.quarantined_at,
    });
    expect(after?.quarantined_at as number).toBeGreaterThan(before?.quarantined_at as number);
    expect(after?.column_quarantined_at).toBe(after?.quarantined_at);
    expect(await parkedRow('orders-0@10')).toBeUndefined();
    expect(await listedIds()).toContain('orders-0@10');
    expect(await appliedCount('e10')).toBeUndefined();
  });

  it('applies a record once its cause is fixed; it leaves the listing and stays as RESOLVED', async () => {
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'applied' });
    expect(await appliedCount('e10')).toBe(1);
    const after = await row('orders-0@10');
    expect(after).toMatchObject({ column_status: 'RESOLVED', replay_outcome: 'applied', replay_attempts: 2 });
    expect(after).not.toHaveProperty('quarantine_consumer');
    expect(await listedIds()).not.toContain('orders-0@10');
  });

  it('applies nothing twice: a second replay of an applied record is a duplicate', async () => {
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'duplicate' });
    expect(await appliedCount('e10')).toBe(1);
    expect(await row('orders-0@10')).toMatchObject({ column_status: 'RESOLVED', replay_attempts: 3 });
  });

  it('resolves as a duplicate a record whose event was applied from another delivery', async () => {
    await deliver(
      kafkaEvent([{ offset: 41, value: { event_id: 'e12', amount: 600 } }]),
      Date.now(),
      consumer,
    );
    expect(await appliedCount('e12')).toBe(1);
    expect((await replay('orders-0@12')).results[0]?.outcome).toBe('duplicate');
    expect(await appliedCount('e12')).toBe(1);
  });

  it('puts a record back as it was when the consumer reports it (failed, exit 1)', async () => {
    const failing = join(import.meta.dirname, 'fixtures', 'failing-handler.ts');
    const before = await row('orders-0@13');
    const reported = await run('quarantine', 'replay', 'orders-0@13', '--handler', failing, '--json');
    expect(reported.code).toBe(1);
    expect(JSON.parse(reported.out).results[0]).toMatchObject({ outcome: 'failed' });
    expect(await row('orders-0@13')).toEqual({
      ...before,
      replayed_at: expect.any(Number),
      replay_attempts: 1,
      replay_outcome: 'failed',
      replay_detail: 'reported for retry by the consumer',
    });
    expect(await listedIds()).toContain('orders-0@13');
  });

  it('finishes a replay that stopped after parking the row: listed as replaying until then', async () => {
    const inbox = operatorInbox();
    const parked = await getRow(inbox, 'orders-0@14');
    expect(parked && (await inbox.park(parked))).toBe(true);
    expect(await row('orders-0@14')).toBeUndefined();
    expect(await parkedRow('orders-0@14')).toMatchObject({ pk: `${CONSUMER}!replaying#orders-0@14` });
    expect((await listed()).rows.find((r) => r.id === 'orders-0@14')).toMatchObject({ replaying: true });
    const { results } = await replay('orders-0@14');
    expect(results[0]?.outcome).toBe('applied');
    expect(await row('orders-0@14')).toMatchObject({ column_status: 'RESOLVED', replay_attempts: 1 });
    expect(await parkedRow('orders-0@14')).toBeUndefined();
    expect(await appliedCount('e14')).toBe(1);
  });
});

describe('two operators on Postgres', () => {
  it('refuses to discard or park a row that changed since it was read, and changes nothing', async () => {
    const first = operatorInbox();
    const second = operatorInbox();
    const readByFirst = await first.quarantineRow('orders-0@15');
    const readBySecond = await second.quarantineRow('orders-0@15');
    if (readByFirst === undefined || readBySecond === undefined) throw new Error('no row orders-0@15');
    const by = { who: 'second', why: 'duplicate order', nowMs: Date.now() };
    expect(await second.discard(readBySecond, by)).toBe(true);
    const discarded = await row('orders-0@15');
    expect(await first.discard(readByFirst, { ...by, who: 'first' })).toBe(false);
    expect(await first.park(readByFirst)).toBe(false);
    expect(await row('orders-0@15')).toEqual(discarded);
    expect(discarded).toMatchObject({ column_status: 'DISCARDED', discarded_by: 'second' });
    expect(await parkedRow('orders-0@15')).toBeUndefined();
  });

  it('refuses to park a row that a replay parked already, leaving the row where it was', async () => {
    process.env.ORDERS_MAX_AMOUNT = '100';
    // A replay parked e16's row and stopped; the consumer quarantined a redelivery under the free key.
    const inbox = operatorInbox();
    const first = await inbox.quarantineRow('orders-0@16');
    expect(first && (await inbox.park(first))).toBe(true);
    await deliver(
      kafkaEvent([{ offset: 16, value: { event_id: 'e16', amount: 300 } }]),
      Date.now(),
      consumer,
    );
    const fresh = await inbox.quarantineRow('orders-0@16');
    expect(fresh && (await inbox.park(fresh))).toBe(false);
    expect(await row('orders-0@16')).toMatchObject({ column_status: 'QUARANTINED' });
    // The replay finishes the parked one, folding the fresh row in: one row per id, applied once.
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { results } = await replay('--all', '--reason', 'invalid-event', '--dry-run');
    expect(results.filter((r) => r.id === 'orders-0@16')).toHaveLength(1);
    expect((await replay('orders-0@16')).results[0]?.outcome).toBe('applied');
    expect(await row('orders-0@16')).toMatchObject({ column_status: 'RESOLVED', replay_outcome: 'applied' });
    expect(await parkedRow('orders-0@16')).toBeUndefined();
    expect(await appliedCount('e16')).toBe(1);
  });
});

describe('quarantine discard on Postgres', () => {
  it('changes nothing with --dry-run or without a yes', async () => {
    const before = await row('orders-0@17');
    expect((await run('quarantine', 'discard', 'orders-0@17', '--dry-run')).out).toMatch(
      /orders-0@17\s+would discard/,
    );
    await expect(answering(undefined, 'quarantine', 'discard', 'orders-0@17')).rejects.toThrow(
      'discarding 1 record(s) needs a yes: run it in a terminal, or pass --yes',
    );
    expect((await answering('n', 'quarantine', 'discard', 'orders-0@17')).code).toBe(1);
    expect(await row('orders-0@17')).toEqual(before);
  });

  it('marks the row discarded (who, when, why) and takes it out of the listing', async () => {
    const result = await answering('y', 'quarantine', 'discard', 'orders-0@17', '--why', 'test order');
    expect(result.code).toBe(0);
    expect(await row('orders-0@17')).toMatchObject({
      column_status: 'DISCARDED',
      status: 'DISCARDED',
      discarded_by: 'test-operator',
      discard_reason: 'test order',
      discarded_at: expect.any(Number),
      quarantined_since: expect.any(Number),
    });
    expect(await listedIds()).not.toContain('orders-0@17');
    const again = await run('quarantine', 'discard', 'orders-0@17', '--yes');
    expect({ code: again.code, out: again.out }).toMatchObject({
      code: 1,
      out: expect.stringMatching(/not quarantined \(DISCARDED\)/),
    });
  });

  it('discards --all of one reason with --yes', async () => {
    const result = await run('quarantine', 'discard', '--all', '--reason', 'missing-event-id', '--yes');
    expect(result.code).toBe(0);
    expect(await listedIds('--reason', 'missing-event-id')).toEqual([]);
    expect(await row('orders-0@11')).toMatchObject({ column_status: 'DISCARDED' });
  });
});
