/**
 * The operator's quarantine commands against DynamoDB Local, on rows a real consumer quarantined
 * (fixtures/orders-handler.ts): list, show, replay and discard, each change also as --dry-run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { CONSUMER, deliver, operator, useConsumerEnvironment } from './operator-harness.js';

let tables: TestTables;
let endpoint: string;
const run = (...argv: string[]) => operator(tables, endpoint, argv);
const row = (id: string) => tables.get(tables.inboxTableName, quarantineRowKey(CONSUMER, id));
const listedIds = async (...argv: string[]) =>
  (
    JSON.parse((await run('quarantine', 'list', '--json', ...argv)).out) as { rows: { id: string }[] }
  ).rows.map((listed) => listed.id);

/** Quarantined in this order, one batch each, so their quarantined_at differ. */
const POISON: readonly RecordSpec[] = [
  { offset: 10, value: { event_id: 'e10', amount: 500 }, headers: { trace: 'abc' } },
  { offset: 11, value: { amount: 5 } },
  { offset: 12, value: 'not JSON' },
  { offset: 13, value: { event_id: 'e13', amount: 500, pad: 'x'.repeat(400_000) } },
  { offset: 14, value: { event_id: 'e14', amount: 700 } },
  { offset: 15, value: { event_id: 'e15', amount: 800 } },
  { offset: 16, value: { event_id: 'e16', amount: 900 } },
  { offset: 17, value: { event_id: 'e17', amount: 300 } },
];
let secondQuarantinedAt: number;

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  for (const spec of POISON) {
    const response = await deliver(kafkaEvent([spec]));
    expect(response.batchItemFailures).toEqual([]);
    await sleep(5);
  }
  secondQuarantinedAt = (await row('orders-0@11'))?.quarantined_at as number;
  // A binary value: kafkaEvent sends a string as UTF-8, so this one is built by hand.
  const binary = kafkaEvent([{ offset: 18, value: 'x' }]);
  const record = binary.records['orders-0']?.[0] as { value: string };
  record.value = Buffer.from([0xff, 0x00, 0xfe]).toString('base64');
  await deliver(binary);
});

describe('quarantine list', () => {
  it('lists every quarantined record newest first, with the counts per reason', async () => {
    const result = await run('quarantine', 'list', '--json');
    const listed = JSON.parse(result.out) as {
      total: number;
      countsByReason: Record<string, number>;
      rows: { id: string; dedupKey?: string }[];
    };
    expect(listed.rows.map((r) => r.id)).toEqual([
      'orders-0@18',
      'orders-0@17',
      'orders-0@16',
      'orders-0@15',
      'orders-0@14',
      'orders-0@13',
      'orders-0@12',
      'orders-0@11',
      'orders-0@10',
    ]);
    // 12 and 18 have no header and a value that is not JSON: the value's reason, not missing-event-id.
    expect(listed.countsByReason).toEqual({ 'invalid-event': 8, 'missing-event-id': 1 });
    expect(listed.rows.find((r) => r.id === 'orders-0@10')?.dedupKey).toBe('e10');
  });

  it('filters by reason and by time, and limits the rows but not the counts', async () => {
    expect(await listedIds('--reason', 'missing-event-id')).toEqual(['orders-0@11']);
    expect(
      await listedIds('--since', new Date(secondQuarantinedAt).toISOString(), '--reason', 'invalid-event'),
    ).not.toContain('orders-0@10');
    const limited = JSON.parse((await run('quarantine', 'list', '--json', '--limit', '2')).out) as {
      total: number;
      rows: unknown[];
    };
    expect(limited.rows).toHaveLength(2);
    expect(limited.total).toBe(9);
  });

  it('prints a table and the counts for a person', async () => {
    const { out } = await run('quarantine', 'list', '--limit', '3');
    expect(out.split('\n')[0]).toMatch(/^ID\s+REASON\s+QUARANTINED\s+DEDUP KEY\s+SIZE$/);
    expect(out).toMatch(/orders-0@18\s+invalid-event\s+\S+ \S+\s+-\s+3 B/);
    expect(out).toContain('9 quarantined (3 shown: --limit): invalid-event 8, missing-event-id 1');
  });

  it('says which table is missing, in one line', async () => {
    const missing = operator({ ...tables, inboxTableName: 'no-such-table' }, endpoint, [
      'quarantine',
      'list',
    ]);
    await expect(missing).rejects.toThrow(UserError);
    await expect(missing).rejects.toThrow(
      /^table no-such-table \(or its quarantine index\) not found at http/,
    );
  });
});

describe('quarantine show', () => {
  it('decodes a JSON value, its headers and its dedup key', async () => {
    const shown = JSON.parse((await run('quarantine', 'show', 'orders-0@10', '--json')).out);
    expect(shown.record.value).toEqual({ json: { event_id: 'e10', amount: 500 } });
    expect(shown.record.headers).toEqual([{ name: 'trace', text: 'abc' }]);
    expect(shown.record.valueTruncated).toBe(false);
    expect(shown.row.reason).toBe('invalid-event');
    const text = (await run('quarantine', 'show', 'orders-0@10')).out;
    expect(text).toMatch(/^value\s+JSON, 31 B$/m);
    expect(text).toMatch(/^truncated\s+no$/m);
  });

  it('shows a value that is not UTF-8 as base64', async () => {
    const shown = JSON.parse((await run('quarantine', 'show', 'orders-0@18', '--json')).out);
    expect(shown.record.value).toEqual({ base64: Buffer.from([0xff, 0x00, 0xfe]).toString('base64') });
  });

  it('says when the value was cut to fit the row', async () => {
    const shown = JSON.parse((await run('quarantine', 'show', 'orders-0@13', '--json')).out);
    expect(shown.record.valueTruncated).toBe(true);
    expect(shown.record.value).toHaveProperty('base64');
    expect((await run('quarantine', 'show', 'orders-0@13')).out).toMatch(/^truncated\s+yes/m);
  });

  it('refuses an id that has no row, in one line', async () => {
    await expect(run('quarantine', 'show', 'orders-0@999')).rejects.toThrow(
      /^no quarantine row orders-0@999 for consumer orders in table inbox-\w+: `msk-inbox quarantine list` prints the ids$/,
    );
  });
});
