/**
 * `quarantine replay` judges by the consumer's settings, not the operator's shell's
 * (docs/operate.md#replay). The consumer (fixtures/ref-orders-handler.ts) keys events by `order_ref`, set
 * in its code, which the shell does not know:
 * - a row it writes keeps the key it derived and its dedup window, and the replay judges by the row,
 *   however it invokes the consumer;
 * - a row written before the consumer kept them (msk-inbox 0.1.0; made here by removing the two
 *   attributes) is judged as then: through `--function` by the function's environment
 *   (GetFunctionConfiguration, served by the local Invoke API), else it says `acked`, not `skipped`.
 * A record older than the window is not sent.
 */
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { INBOX_ATTRIBUTES, quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import { InProcessFunction } from '../../../local/esm/lambda-function.js';
import {
  type InvokeApiServer,
  startInvokeApiServer,
} from '../../../local/lambda-runtime/invoke-api-server.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { appliedCountOf, CONSUMER, deliver, operator, useConsumerEnvironment } from './operator-harness.js';

const REF_HANDLER = join(import.meta.dirname, 'fixtures', 'ref-orders-handler.ts');
const DAY_MS = 86_400_000;

let tables: TestTables;
let endpoint: string;
let invokeApi: InvokeApiServer;

const run = (...argv: string[]) => operator(tables, endpoint, argv);
const row = (id: string) => tables.get(tables.inboxTableName, quarantineRowKey(CONSUMER, id));
const replay = async (...argv: string[]) => {
  const result = await run('quarantine', 'replay', '--json', ...argv);
  const parsed = JSON.parse(result.out) as {
    results: { id: string; outcome: string; detail: string; dedupKey?: string }[];
  };
  return { code: result.code, result: parsed.results[0] };
};
const through = (name: string) => ['--function', name, '--lambda-endpoint', invokeApi.endpoint];
const appliedCount = (ref: string) => appliedCountOf(tables, ref);
/** The row with some attributes as another consumer configuration would have written them. */
const amended = async (id: string, attributes: Record<string, unknown>) => {
  const item = { ...(await row(id)), ...attributes };
  await tables.documentClient.send(new PutCommand({ TableName: tables.inboxTableName, Item: item }));
};
/** The row as msk-inbox 0.1.0 wrote it: without the consumer's key and window. */
const asWrittenBefore = async (id: string) => {
  const {
    [INBOX_ATTRIBUTES.dedupKey]: _key,
    [INBOX_ATTRIBUTES.dedupTtlSeconds]: _ttl,
    ...older
  } = (await row(id)) ?? {};
  await tables.documentClient.send(new PutCommand({ TableName: tables.inboxTableName, Item: older }));
};

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  const { handler, REF_FUNCTION_ENVIRONMENT } = await import('./fixtures/ref-orders-handler.js');
  // Over the maximum (100): quarantined as invalid-event; r-3 was produced nine days ago.
  const order = (offset: number, ref: string) => ({ offset, value: { order_ref: ref, amount: 500 } });
  const orders = [order(30, 'r-1'), order(31, 'r-2'), order(33, 'r-4'), order(34, 'r-5'), order(37, 'r-8')];
  await deliver(kafkaEvent(orders), Date.now(), handler);
  const older = [order(32, 'r-3'), order(35, 'r-6'), order(36, 'r-7')];
  await deliver(kafkaEvent(older), Date.now() - 9 * DAY_MS, handler);
  for (const id of ['orders-0@33', 'orders-0@34', 'orders-0@35']) await asWrittenBefore(id);
  // Quarantined while the consumer had a 30-day window; and under a key policy it has changed since.
  await amended('orders-0@36', { [INBOX_ATTRIBUTES.dedupTtlSeconds]: 30 * 86_400 });
  await amended('orders-0@37', { [INBOX_ATTRIBUTES.dedupKey]: 'key-of-the-old-policy' });
  invokeApi = await startInvokeApiServer({
    functions: new Map([
      [
        'ref-consumer',
        new InProcessFunction(handler, {
          functionName: 'ref-consumer',
          environment: REF_FUNCTION_ENVIRONMENT,
        }),
      ],
      [
        'ref-consumer-30d',
        new InProcessFunction(handler, {
          functionName: 'ref-consumer-30d',
          environment: {
            ...REF_FUNCTION_ENVIRONMENT,
            DEDUP_TTL_SECONDS: String(30 * 86_400),
            // Ours: the check that the function is this consumer's passes.
            CONSUMER_NAME: CONSUMER,
            INBOX_TABLE_NAME: tables.inboxTableName,
          },
        }),
      ],
      // Another consumer's function, and ours writing another table: neither may judge our rows.
      ...(['payments', 'orders-elsewhere'] as const).map(
        (name) =>
          [
            name,
            new InProcessFunction(handler, {
              functionName: name,
              environment:
                name === 'payments'
                  ? { CONSUMER_NAME: 'payments', INBOX_TABLE_NAME: tables.inboxTableName }
                  : { CONSUMER_NAME: CONSUMER, INBOX_TABLE_NAME: 'other-inbox' },
            }),
          ] as const,
      ),
    ]),
  });
  // The cause is fixed: the consumer now takes these amounts.
  process.env.ORDERS_MAX_AMOUNT = '1000';
}, 60_000);

afterAll(async () => {
  process.env.ORDERS_MAX_AMOUNT = '100';
  await invokeApi?.close();
});

describe('a row the consumer wrote', () => {
  it('keeps the key the consumer derived: list shows it, and a replay through --handler, whose shell lacks DEDUP_FIELD, is judged by it', async () => {
    const listed = JSON.parse((await run('quarantine', 'list', '--json')).out) as {
      rows: { id: string; dedupKey?: string }[];
    };
    expect(listed.rows.find((r) => r.id === 'orders-0@30')?.dedupKey).toBe('r-1');
    const { code, result } = await replay('orders-0@30', '--handler', REF_HANDLER);
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-1' });
    expect(await appliedCount('r-1')).toBe(1);
    expect(await row('orders-0@30')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'applied' });
  });

  it("looks under the key the consumer's settings give now too, where it differs from the row's: applied, not skipped", async () => {
    const { code, result } = await replay('orders-0@37', ...through('ref-consumer'));
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-8' });
    expect(await appliedCount('r-8')).toBe(1);
  });

  it('is judged by the row through --function too: applied, then a duplicate', async () => {
    expect((await replay('orders-0@31', ...through('ref-consumer'))).result).toMatchObject({
      outcome: 'applied',
      dedupKey: 'r-2',
    });
    expect(await appliedCount('r-2')).toBe(1);
    expect((await replay('orders-0@31', ...through('ref-consumer'))).result).toMatchObject({
      outcome: 'duplicate',
    });
  });
});

describe('a row written before the consumer kept its key (0.1.0)', () => {
  it("derives the key from the DEDUP_FIELD in the function's environment: applied, not skipped", async () => {
    // The shell has no DEDUP_FIELD: list derives no key.
    const listed = JSON.parse((await run('quarantine', 'list', '--json')).out) as {
      rows: { id: string; dedupKey?: string }[];
    };
    expect(listed.rows.find((r) => r.id === 'orders-0@33')?.dedupKey).toBeUndefined();
    const { code, result } = await replay('orders-0@33', ...through('ref-consumer'));
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-4' });
    expect(await appliedCount('r-4')).toBe(1);
  });

  it('says acked where it cannot derive the key (--handler, the shell lacks DEDUP_FIELD); the row is RESOLVED', async () => {
    const { code, result } = await replay('orders-0@34', '--handler', REF_HANDLER);
    expect(code).toBe(0);
    expect(result).toEqual({
      id: 'orders-0@34',
      outcome: 'acked',
      detail: 'acked by the consumer: applied, a duplicate or skipped; the tool cannot derive its key here',
    });
    expect(await appliedCount('r-5')).toBe(1);
    expect(await row('orders-0@34')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'acked' });
    expect(await row('orders-0@34')).not.toHaveProperty('quarantine_consumer');
  });
});

describe("another consumer's function", () => {
  it('is refused in one line before anything is sent: its CONSUMER_NAME or INBOX_TABLE_NAME is not ours', async () => {
    const before = await row('orders-0@32');
    await expect(replay('orders-0@32', ...through('payments'))).rejects.toThrow(
      `function payments has CONSUMER_NAME=payments, not ${CONSUMER} (--consumer): it would ack these records under its own rows; pass the function of consumer ${CONSUMER}`,
    );
    await expect(replay('orders-0@32', ...through('orders-elsewhere'), '--dry-run')).rejects.toThrow(
      `function orders-elsewhere has INBOX_TABLE_NAME=other-inbox, not ${tables.inboxTableName} (--table)`,
    );
    expect(await row('orders-0@32')).toEqual(before);
  });
});

describe('past the dedup window', () => {
  it('marks the record in list, and does not send it: past-dedup-window, the row stays (exit 1)', async () => {
    const listed = await run('quarantine', 'list');
    expect(listed.out).toMatch(/^orders-0@32 \(past window\) +invalid-event/m);
    const shown = await run('quarantine', 'show', 'orders-0@32');
    expect(shown.out).toMatch(
      /^record .*Z \(past the dedup window: replay sends it only with --past-dedup-window\)$/m,
    );
    const before = await row('orders-0@32');
    const { code, result } = await replay('orders-0@32', ...through('ref-consumer'));
    expect(code).toBe(1);
    expect(result?.outcome).toBe('past-dedup-window');
    // The window the consumer wrote its dedup rows under, kept on the row.
    expect(result?.detail).toMatch(
      /\(7 d less 1 h for clock skew, the consumer's, kept on the quarantine row\)/,
    );
    expect(await row('orders-0@32')).toEqual(before);
    expect(await appliedCount('r-3')).toBeUndefined();
    const forced = await replay(
      'orders-0@32',
      ...through('ref-consumer'),
      '--past-dedup-window',
      '--dry-run',
    );
    expect(forced.result?.outcome).toBe('would-replay');
  });

  it("judges by the row's window, not the function's DEDUP_TTL_SECONDS of 30 days: not sent", async () => {
    const { code, result } = await replay('orders-0@32', ...through('ref-consumer-30d'));
    expect(code).toBe(1);
    expect(result?.outcome).toBe('past-dedup-window');
  });

  it("takes the function's 7-day window where the row's (30 days) is longer: the shorter one's dedup rows expire first", async () => {
    const { code, result } = await replay('orders-0@36', ...through('ref-consumer'));
    expect(code).toBe(1);
    expect(result?.outcome).toBe('past-dedup-window');
    expect(result?.detail).toMatch(/\(7 d less 1 h for clock skew, function ref-consumer's configuration\)/);
    expect(await appliedCount('r-7')).toBeUndefined();
  });

  it("takes the window of a row written before (0.1.0) from the function's DEDUP_TTL_SECONDS: 30 days, so it is sent", async () => {
    const { code, result } = await replay('orders-0@35', ...through('ref-consumer-30d'));
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-6' });
  });
});
