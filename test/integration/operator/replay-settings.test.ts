/**
 * `quarantine replay` judges by the consumer's settings, not the operator's shell's
 * (docs/operate.md#replay): through `--function` it reads the function's environment
 * (GetFunctionConfiguration, served by the local Invoke API) for its dedup key policy and dedup window;
 * where it cannot derive a key it says `acked`, not `skipped`; a record older than the window is not sent.
 * The consumer (fixtures/ref-orders-handler.ts) keys events by `order_ref`, which the shell does not know.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quarantineRowKey } from '../../../lambdas/core/inbox-item.js';
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

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  const { handler, REF_FUNCTION_ENVIRONMENT } = await import('./fixtures/ref-orders-handler.js');
  // Over the maximum (100): quarantined as invalid-event; r-3 was produced nine days ago.
  const order = (offset: number, ref: string) => ({ offset, value: { order_ref: ref, amount: 500 } });
  await deliver(kafkaEvent([order(30, 'r-1'), order(31, 'r-2')]), Date.now(), handler);
  await deliver(kafkaEvent([order(32, 'r-3')]), Date.now() - 9 * DAY_MS, handler);
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

describe("the function's settings", () => {
  it("derives the dedup key from the DEDUP_FIELD in the function's environment: applied, not skipped", async () => {
    // The shell has no DEDUP_FIELD: list derives no key.
    const listed = JSON.parse((await run('quarantine', 'list', '--json')).out) as {
      rows: { id: string; dedupKey?: string }[];
    };
    expect(listed.rows.find((r) => r.id === 'orders-0@30')?.dedupKey).toBeUndefined();
    const { code, result } = await replay('orders-0@30', ...through('ref-consumer'));
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-1' });
    expect(await appliedCount('r-1')).toBe(1);
    expect((await replay('orders-0@30', ...through('ref-consumer'))).result).toMatchObject({
      outcome: 'duplicate',
    });
  });

  it('says acked where it cannot derive the key (--handler, the shell lacks DEDUP_FIELD); the row is RESOLVED', async () => {
    const { code, result } = await replay('orders-0@31', '--handler', REF_HANDLER);
    expect(code).toBe(0);
    expect(result).toEqual({
      id: 'orders-0@31',
      outcome: 'acked',
      detail: 'acked by the consumer: applied, a duplicate or skipped; the tool cannot derive its key here',
    });
    expect(await appliedCount('r-2')).toBe(1);
    expect(await row('orders-0@31')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'acked' });
    expect(await row('orders-0@31')).not.toHaveProperty('quarantine_consumer');
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
    expect(result?.detail).toMatch(/\(7 d less 1 h for clock skew, function ref-consumer's configuration\)/);
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

  it("takes the window from the function's DEDUP_TTL_SECONDS: 30 days, so it is sent", async () => {
    const { code, result } = await replay('orders-0@32', ...through('ref-consumer-30d'));
    expect(code).toBe(0);
    expect(result).toMatchObject({ outcome: 'applied', dedupKey: 'r-3' });
  });
});
