/**
 * `quarantine replay --function` and `--stack`, against real parts: the function is the very bundle CDK
 * deploys (the order consumer, built by buildBundles) in the worker-thread runtime, behind the local
 * Invoke API, called by the real @aws-sdk/client-lambda client; the tables are DynamoDB Local's. Only
 * CloudFormation is a stand-in (test/support/cloudformation-stub.ts: DescribeStacks in its XML, on
 * loopback, reached by the real client through AWS_ENDPOINT_URL_CLOUDFORMATION).
 *
 * The rows are quarantined first by the fixture consumer (fixtures/orders-handler.ts refuses amounts over
 * ORDERS_MAX_AMOUNT): valid orders a stricter earlier version refused, which the order consumer applies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import { LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import type { LambdaFunction } from '../../../local/esm/lambda-function.js';
import { buildBundles } from '../../../local/lambda-runtime/build-bundles.js';
import {
  type InvokeApiServer,
  startInvokeApiServer,
} from '../../../local/lambda-runtime/invoke-api-server.js';
import type { WorkerFunction } from '../../../local/lambda-runtime/worker-function.js';
import { UserError } from '../../../operator/cli/user-error.js';
import type { OperatorIo } from '../../../operator/commands/operator-io.js';
import { runOperator } from '../../../operator/operator-main.js';
import { type CloudFormationStub, startCloudFormationStub } from '../../support/cloudformation-stub.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { orderConsumerBundle } from '../../support/order-consumer-bundle.js';
import { CONSUMER, deliver, useConsumerEnvironment } from './operator-harness.js';

const FUNCTION = 'order-consumer';
const BROKEN = 'order-consumer-misconfigured';
const STACK = 'OrdersStack';

let tables: TestTables;
let endpoint: string;
let bundleDirectory: string;
let invokeApi: InvokeApiServer;
let cloudFormation: CloudFormationStub;
const functions = new Map<string, LambdaFunction>();

interface Run {
  readonly code: number;
  readonly out: string;
}

/** One command line, in process, with exactly the flags given. */
async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const io: OperatorIo = {
    print: (text) => out.push(text),
    note: () => undefined,
    ask: async () => undefined,
    nowMs: () => Date.now(),
    user: () => 'test-operator',
  };
  const code = await runOperator(argv, io);
  return { code, out: out.join('\n') };
}

const where = () => ['--endpoint', endpoint, '--table', tables.inboxTableName, '--consumer', CONSUMER];
const throughLambda = (name = FUNCTION) => ['--function', name, '--lambda-endpoint', invokeApi.endpoint];
const replay = async (...argv: string[]) => {
  const result = await cli('quarantine', 'replay', '--json', ...argv);
  const parsed = JSON.parse(result.out) as { results: { id: string; outcome: string; detail: string }[] };
  return { code: result.code, results: parsed.results };
};
const row = (id: string) => tables.get(tables.inboxTableName, quarantineRowKey(CONSUMER, id));
const orderTotal = async (orderId: string) =>
  (await tables.get(tables.appTableName, `order#${orderId}`))?.total as number | undefined;
const order = (n: number, amount: number) => ({
  offset: n,
  value: { event_id: `e${n}`, type: 'OrderPlaced', order_id: `o${n}`, account_id: 'a1', amount },
});

/** The order consumer's bundle in execution environments, with the function's own environment. */
function orderConsumer(environment: Record<string, string>): WorkerFunction {
  return orderConsumerBundle({
    bundleDirectory,
    dynamoDbEndpoint: endpoint,
    functionName: FUNCTION,
    environment,
  });
}

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  bundleDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-replay-function-'));
  await buildBundles(bundleDirectory);
  functions.set(
    FUNCTION,
    orderConsumer({
      INBOX_TABLE_NAME: tables.inboxTableName,
      APP_TABLE_NAME: tables.appTableName,
      CONSUMER_NAME: CONSUMER,
    }),
  );
  // No CONSUMER_NAME: the bundle's cold start fails, which Lambda answers as a function error.
  functions.set(BROKEN, orderConsumer({ INBOX_TABLE_NAME: tables.inboxTableName }));
  invokeApi = await startInvokeApiServer({ functions });
  cloudFormation = await startCloudFormationStub({
    [STACK]: {
      FunctionName: FUNCTION,
      InboxTableName: tables.inboxTableName,
      ConsumerName: CONSUMER,
      FailedBatchesBucket: 'orders-failed-batches',
      DashboardName: 'orders',
    },
    OldStack: { InboxTableName: 'not-this-table', FunctionName: 'not-this-function' },
  });
  process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudFormation.endpoint;

  useConsumerEnvironment(tables, endpoint);
  process.env.ORDERS_MAX_AMOUNT = '100';
  const response = await deliver(
    kafkaEvent([order(10, 500), order(11, 600), order(12, -5), order(13, 700), order(14, 800)]),
  );
  expect(response.batchItemFailures).toEqual([]);
  for (const offset of [10, 11, 12, 13, 14]) expect(await row(`orders-0@${offset}`)).toBeDefined();
}, 120_000);

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_CLOUDFORMATION;
  await invokeApi?.close();
  await Promise.all([...functions.values()].map((fn) => fn.close()));
  await cloudFormation?.close();
  await rm(bundleDirectory, { recursive: true, force: true });
});

describe('quarantine replay --function, through the local Invoke API and the deployed bundle', () => {
  it('applies a record the function now accepts; a second replay is a duplicate and applies nothing twice', async () => {
    const first = await replay('orders-0@10', ...throughLambda(), ...where());
    expect({ code: first.code, outcome: first.results[0]?.outcome }).toEqual({ code: 0, outcome: 'applied' });
    expect(await orderTotal('o10')).toBe(500);
    expect(await row('orders-0@10')).toMatchObject({ status: 'RESOLVED', replay_outcome: 'applied' });

    const second = await replay('orders-0@10', ...throughLambda(), ...where());
    expect({ code: second.code, outcome: second.results[0]?.outcome }).toEqual({
      code: 0,
      outcome: 'duplicate',
    });
    expect(await orderTotal('o10')).toBe(500);
    expect(await tables.get(tables.appTableName, 'account#a1')).toMatchObject({ balance: -500 });
  });

  it('keeps a record the function still refuses: quarantined again, with its new reason (exit 1)', async () => {
    const { code, results } = await replay('orders-0@12', ...throughLambda(), ...where());
    expect(code).toBe(1);
    expect(results[0]).toMatchObject({
      outcome: 'quarantined-again',
      detail: expect.stringMatching(/^quarantined again: invalid-event: .*amount/),
    });
    expect(await row('orders-0@12')).toMatchObject({
      status: 'QUARANTINED',
      replay_outcome: 'quarantined-again',
      replay_attempts: 1,
    });
  });

  it("reaches the local runtime through the SDK's own AWS_ENDPOINT_URL_LAMBDA too", async () => {
    process.env.AWS_ENDPOINT_URL_LAMBDA = invokeApi.endpoint;
    try {
      const { results } = await replay('orders-0@12', '--function', FUNCTION, ...where());
      expect(results[0]?.outcome).toBe('quarantined-again');
      expect(await row('orders-0@12')).toMatchObject({ replay_attempts: 2 });
    } finally {
      delete process.env.AWS_ENDPOINT_URL_LAMBDA;
    }
  });

  it("counts a function error as failed, with the function's errorType, and leaves the row as it was", async () => {
    const before = await row('orders-0@11');
    const { code, results } = await replay('orders-0@11', ...throughLambda(BROKEN), ...where());
    expect(code).toBe(1);
    expect(results[0]).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(
        /^the handler threw: Runtime\.ImportModuleError: Invalid configuration: /,
      ),
    });
    expect(await row('orders-0@11')).toEqual({
      ...before,
      replayed_at: expect.any(Number),
      replay_attempts: 1,
      replay_outcome: 'failed',
      replay_detail: results[0]?.detail,
    });
    expect(await orderTotal('o11')).toBeUndefined();
  });

  it('stops at a function that is not there, before any row changes: one line naming the fix', async () => {
    const before = await row('orders-0@11');
    const attempt = replay('orders-0@11', ...throughLambda('order-consumr'), ...where());
    await expect(attempt).rejects.toThrow(UserError);
    await expect(attempt).rejects.toThrow(
      `function order-consumr not found at ${invokeApi.endpoint}: check --function (or --stack), --region or --lambda-endpoint`,
    );
    expect(await row('orders-0@11')).toEqual(before);
  });

  it('needs exactly one thing to run the records through', async () => {
    await expect(replay('orders-0@11', ...where())).rejects.toThrow(
      /^what should run the records\? pass --function NAME .*, --stack NAME or --handler FILE$/,
    );
    await expect(
      replay('orders-0@11', '--function', FUNCTION, '--handler', 'h.mjs', ...where()),
    ).rejects.toThrow('--handler or --function, not both');
  });
});

describe('--stack: the stack outputs fill in what the flags do not give', () => {
  it('finds the function, the table and the consumer from the outputs', async () => {
    const { code, results } = await replay(
      'orders-0@13',
      '--stack',
      STACK,
      '--lambda-endpoint',
      invokeApi.endpoint,
      '--endpoint',
      endpoint,
    );
    expect({ code, outcome: results[0]?.outcome }).toEqual({ code: 0, outcome: 'applied' });
    expect(await orderTotal('o13')).toBe(700);
    expect(cloudFormation.requests.at(-1)).toBe(STACK);
    const listed = await cli('quarantine', 'list', '--json', '--stack', STACK, '--endpoint', endpoint);
    expect((JSON.parse(listed.out) as { consumer: string }).consumer).toBe(CONSUMER);
  });

  it('lets the flags win over the outputs', async () => {
    const { results } = await replay('orders-0@14', '--stack', 'OldStack', ...throughLambda(), ...where());
    expect(results[0]?.outcome).toBe('applied');
    expect(await orderTotal('o14')).toBe(800);
  });

  it('says in one line that a stack is not there, and what an older stack lacks', async () => {
    await expect(cli('quarantine', 'list', '--stack', 'NoSuchStack', '--endpoint', endpoint)).rejects.toThrow(
      `stack NoSuchStack not found in ${LOCAL_REGION}: check --stack, --region or --profile`,
    );
    // A shell set up like the function would give the consumer; this one is not.
    const consumerVariable = process.env.CONSUMER_NAME;
    delete process.env.CONSUMER_NAME;
    try {
      await expect(cli('quarantine', 'list', '--stack', 'OldStack', '--endpoint', endpoint)).rejects.toThrow(
        'which consumer? pass --consumer NAME (or set CONSUMER_NAME); stack OldStack has no ConsumerName output',
      );
    } finally {
      process.env.CONSUMER_NAME = consumerVariable;
    }
  });
});
