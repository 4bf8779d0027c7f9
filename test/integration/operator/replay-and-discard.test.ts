/**
 * `quarantine replay` and `quarantine discard` against DynamoDB Local, on rows the fixture consumer
 * (fixtures/orders-handler.ts) quarantined: what each outcome does to the row, the index and the app
 * table, and that --dry-run changes nothing.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { DynamoDbOperatorInbox } from '../../../operator/dynamodb-operator-inbox.js';
import { getRow } from '../../../operator/operator-inbox.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import {
  appliedCountOf,
  CONSUMER,
  deliver,
  HANDLER_FILE,
  operator,
  useConsumerEnvironment,
} from './operator-harness.js';

let tables: TestTables;
let endpoint: string;
const run = (...argv: string[]) => operator(tables, endpoint, argv);
const answering = (answer: string | undefined, ...argv: string[]) => operator(tables, endpoint, argv, answer);
const row = (id: string) => tables.get(tables.inboxTableName, quarantineRowKey(CONSUMER, id));
const appliedCount = (eventId: string) => appliedCountOf(tables, eventId);
const listedIds = async () =>
  (JSON.parse((await run('quarantine', 'list', '--json')).out) as { rows: { id: string }[] }).rows.map(
    (r) => r.id,
  );
const replay = async (...argv: string[]) => {
  const result = await run('quarantine', 'replay', '--handler', HANDLER_FILE, '--json', ...argv);
  const parsed = JSON.parse(result.out) as { results: { id: string; outcome: string; detail: string }[] };
  return { code: result.code, results: parsed.results };
};

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  const orders = [
    { offset: 10, value: { event_id: 'e10', amount: 500 } },
    { offset: 14, value: { event_id: 'e14', amount: 700 } },
    { offset: 15, value: { event_id: 'e15', amount: 800 } },
    { offset: 16, value: { event_id: 'e16', amount: 900 } },
    { offset: 17, value: { event_id: 'e17', amount: 300 } },
    { offset: 18, value: { event_id: 'e18', amount: 300 } },
    { offset: 19, value: { event_id: 'e19', amount: 300 } },
  ];
  const response = await deliver(kafkaEvent(orders));
  expect(response.batchItemFailures).toEqual([]);
  expect(await listedIds()).toHaveLength(orders.length);
});

describe('quarantine replay', () => {
  it('changes nothing with --dry-run', async () => {
    const before = await row('orders-0@10');
    const { code, results } = await replay('orders-0@10', '--dry-run');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'would-replay' });
    expect(await row('orders-0@10')).toEqual(before);
  });

  it('keeps a record its consumer still refuses in the index, recording the replay (exit 1)', async () => {
    const before = await row('orders-0@10');
    const { code, results } = await replay('orders-0@10');
    expect(code).toBe(1);
    expect(results[0]).toMatchObject({
      outcome: 'quarantined-again',
      detail: expect.stringContaining('invalid-event'),
    });
    const after = await row('orders-0@10');
    expect(after).toMatchObject({
      status: 'QUARANTINED',
      reason: 'invalid-event',
      replay_attempts: 1,
      replay_outcome: 'quarantined-again',
    });
    expect(after?.quarantined_at as number).toBeGreaterThan(before?.quarantined_at as number);
    expect(after?.quarantined_since).toBe(before?.quarantined_at);
    expect(await listedIds()).toContain('orders-0@10');
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!replaying#orders-0@10`)).toBeUndefined();
    expect(await appliedCount('e10')).toBeUndefined();
  });

  it('records the new reason when a replay is quarantined for another cause', async () => {
    process.env.ORDERS_MAX_AMOUNT = '1000';
    // The producer re-sent e15 with another payload, which was applied: e15 at offset 15 now conflicts.
    await deliver(kafkaEvent([{ offset: 40, value: { event_id: 'e15', amount: 5 } }]));
    const { results } = await replay('orders-0@15');
    expect(results[0]?.outcome).toBe('quarantined-again');
    expect(await row('orders-0@15')).toMatchObject({
      reason: 'payload-conflict',
      previous_reason: 'invalid-event',
    });
  });

  it('applies a record once its cause is fixed; it leaves the index and stays as RESOLVED', async () => {
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'applied' });
    expect(await appliedCount('e10')).toBe(1);
    const after = await row('orders-0@10');
    expect(after).toMatchObject({ status: 'RESOLVED', replay_outcome: 'applied', replay_attempts: 2 });
    expect(after).not.toHaveProperty('quarantine_consumer');
    expect(after).not.toHaveProperty('quarantined_at');
    expect(await listedIds()).not.toContain('orders-0@10');
  });

  it('applies nothing twice: a second replay of an applied record is a duplicate', async () => {
    const { code, results } = await replay('orders-0@10');
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'duplicate' });
    expect(await appliedCount('e10')).toBe(1);
    expect(await row('orders-0@10')).toMatchObject({ status: 'RESOLVED', replay_attempts: 3 });
  });

  it('resolves as a duplicate a record whose event was applied from another delivery', async () => {
    process.env.ORDERS_MAX_AMOUNT = '1000';
    await deliver(kafkaEvent([{ offset: 41, value: { event_id: 'e14', amount: 700 } }]));
    expect(await appliedCount('e14')).toBe(1);
    const { results } = await replay('orders-0@14');
    expect(results[0]?.outcome).toBe('duplicate');
    expect(await appliedCount('e14')).toBe(1);
    expect(await row('orders-0@14')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'duplicate' });
  });

  it('puts a record back as it was when the consumer reports it or throws (failed, exit 1)', async () => {
    const failing = join(import.meta.dirname, 'fixtures', 'failing-handler.ts');
    const before = await row('orders-0@17');
    const reported = await run('quarantine', 'replay', 'orders-0@17', '--handler', failing, '--json');
    expect(reported.code).toBe(1);
    expect(JSON.parse(reported.out).results[0]).toMatchObject({
      outcome: 'failed',
      detail: 'reported for retry by the consumer',
    });
    process.env.FAIL_BY_THROWING = 'true';
    try {
      const thrown = await run('quarantine', 'replay', 'orders-0@17', '--handler', failing, '--json');
      expect(JSON.parse(thrown.out).results[0]).toMatchObject({
        outcome: 'failed',
        detail: 'the handler threw: downstream unavailable',
      });
    } finally {
      delete process.env.FAIL_BY_THROWING;
    }
    const after = await row('orders-0@17');
    expect(after).toEqual({
      ...before,
      replayed_at: expect.any(Number),
      replay_attempts: 2,
      replay_outcome: 'failed',
      replay_detail: 'the handler threw: downstream unavailable',
    });
    expect(await listedIds()).toContain('orders-0@17');
  });

  it('finishes a replay that stopped after moving the row aside: the row is listed as replaying until then', async () => {
    const inbox = new DynamoDbOperatorInbox({
      client: tables.documentClient,
      tableName: tables.inboxTableName,
      consumer: CONSUMER,
    });
    const parked = await getRow(inbox, 'orders-0@18');
    expect(parked && (await inbox.park(parked))).toBe(true);
    const listed = JSON.parse((await run('quarantine', 'list', '--json')).out) as {
      rows: { id: string; replaying: boolean }[];
    };
    expect(listed.rows.find((r) => r.id === 'orders-0@18')).toMatchObject({ replaying: true });
    expect(await row('orders-0@18')).toBeUndefined();
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { results } = await replay('orders-0@18');
    expect(results[0]?.outcome).toBe('applied');
    expect(await row('orders-0@18')).toMatchObject({ status: 'RESOLVED', replay_attempts: 1 });
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!replaying#orders-0@18`)).toBeUndefined();
    expect(await appliedCount('e18')).toBe(1);
  });

  it('does not take a row a redelivery wrote while the row was aside for the outcome of a later replay', async () => {
    const inbox = new DynamoDbOperatorInbox({
      client: tables.documentClient,
      tableName: tables.inboxTableName,
      consumer: CONSUMER,
    });
    const aside = await getRow(inbox, 'orders-0@19');
    expect(aside && (await inbox.park(aside))).toBe(true);
    process.env.ORDERS_MAX_AMOUNT = '100';
    await deliver(kafkaEvent([{ offset: 19, value: { event_id: 'e19', amount: 300 } }]));
    expect(await row('orders-0@19')).toMatchObject({ status: 'QUARANTINED' });
    process.env.ORDERS_MAX_AMOUNT = '1000';
    const { results } = await replay('--all', '--reason', 'invalid-event', '--dry-run');
    expect(results.filter((r) => r.id === 'orders-0@19')).toHaveLength(1);
    expect((await replay('orders-0@19')).results[0]?.outcome).toBe('applied');
    expect(await row('orders-0@19')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'applied' });
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!replaying#orders-0@19`)).toBeUndefined();
    expect(await appliedCount('e19')).toBe(1);
  });

  it('needs ids or --all, and something to run them through unless it is a dry run', async () => {
    await expect(run('quarantine', 'replay', '--handler', HANDLER_FILE)).rejects.toThrow(
      /give ids .* or --all/,
    );
    await expect(run('quarantine', 'replay', 'orders-0@16')).rejects.toThrow(
      /^what should run the records\? pass --function NAME/,
    );
    await expect(replay('orders-0@404')).rejects.toThrow(/^no quarantine row orders-0@404 /);
  });
});

describe('quarantine discard', () => {
  it('changes nothing with --dry-run', async () => {
    const before = await row('orders-0@16');
    const result = await run('quarantine', 'discard', 'orders-0@16', '--dry-run');
    expect(result.out).toMatch(/orders-0@16\s+would discard/);
    expect(await row('orders-0@16')).toEqual(before);
  });

  it('asks first: no terminal and no --yes is a one-line error, a no changes nothing', async () => {
    const before = await row('orders-0@16');
    await expect(answering(undefined, 'quarantine', 'discard', 'orders-0@16')).rejects.toThrow(UserError);
    await expect(answering(undefined, 'quarantine', 'discard', 'orders-0@16')).rejects.toThrow(
      'discarding 1 record(s) needs a yes: run it in a terminal, or pass --yes',
    );
    expect((await answering('n', 'quarantine', 'discard', 'orders-0@16')).code).toBe(1);
    expect(await row('orders-0@16')).toEqual(before);
  });

  it('marks the row discarded (who, when, why) and takes it out of the index', async () => {
    const result = await answering('y', 'quarantine', 'discard', 'orders-0@16', '--why', 'test order');
    expect(result.code).toBe(0);
    expect(await row('orders-0@16')).toMatchObject({
      status: 'DISCARDED',
      discarded_by: 'test-operator',
      discard_reason: 'test order',
      discarded_at: expect.any(Number),
      quarantined_since: expect.any(Number),
    });
    expect(await listedIds()).not.toContain('orders-0@16');
    const again = await run('quarantine', 'discard', 'orders-0@16', '--yes');
    expect({ code: again.code, out: again.out }).toMatchObject({
      code: 1,
      out: expect.stringMatching(/not quarantined \(DISCARDED\)/),
    });
  });

  it('discards --all of one reason with --yes, and never --all without a reason', async () => {
    await expect(run('quarantine', 'discard', '--all', '--yes')).rejects.toThrow(/needs --reason R/);
    const result = await run(
      'quarantine',
      'discard',
      '--all',
      '--reason',
      'invalid-event',
      '--yes',
      '--by',
      'ops',
    );
    expect(result.code).toBe(0);
    expect(await listedIds()).toEqual(['orders-0@15']);
    expect(await row('orders-0@17')).toMatchObject({ status: 'DISCARDED', discarded_by: 'ops' });
  });
});
