import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MskEvent } from '../../local/esm/msk-event.js';
import { buildRuntimeWorker } from '../../local/lambda-runtime/build-bundles.js';
import { WorkerFunction } from '../../local/lambda-runtime/worker-function.js';

/**
 * Handlers written as plain modules, hosted by the real runtime worker. Each "write" is a DynamoDB-shaped
 * PutItem request to AWS_ENDPOINT_URL_DYNAMODB, which is the environment's write gate.
 */
const HANDLERS = `
const write = (n) => fetch(process.env.AWS_ENDPOINT_URL_DYNAMODB, {
  method: 'POST',
  headers: { 'x-amz-target': 'DynamoDB_20120810.PutItem', 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify({ n }),
});
export const writes = async (event) => {
  for (let n = 0; n < event.writes; n++) await write(n);
  return { batchItemFailures: [] };
};
export const hangs = () => new Promise(() => {});
export const throws = async () => { throw new TypeError('no such field'); };
export const nothing = async () => undefined;
export const context = async (event, ctx) => ({
  functionName: ctx.functionName,
  awsRequestId: ctx.awsRequestId,
  memoryLimitInMB: ctx.memoryLimitInMB,
  remaining: ctx.getRemainingTimeInMillis(),
  endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
  table: process.env.INBOX_TABLE_NAME,
});
`;

let directory: string;
let runtimePath: string;
let upstream: Server;
let upstreamEndpoint: string;
let upstreamWrites: number;
const functions: WorkerFunction[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'msk-inbox-runtime-'));
  runtimePath = await buildRuntimeWorker(directory);
  await writeFile(join(directory, 'handlers.mjs'), HANDLERS);
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      upstreamWrites++;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  upstreamEndpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterEach(async () => {
  await Promise.all(functions.splice(0).map((fn) => fn.close()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await rm(directory, { recursive: true, force: true });
});

function workerFunction(handlerExport: string): WorkerFunction {
  upstreamWrites = 0;
  const fn = new WorkerFunction({
    functionName: 'test-fn',
    runtimePath,
    handlerPath: join(directory, 'handlers.mjs'),
    handlerExport,
    dynamoDbEndpoint: upstreamEndpoint,
    environment: { INBOX_TABLE_NAME: 'inbox-table' },
  });
  functions.push(fn);
  return fn;
}

const anEvent = (fields: Record<string, unknown> = {}) =>
  ({ eventSource: 'aws:kafka', bootstrapServers: 'memory:9092', records: {}, ...fields }) as MskEvent;

const invocation = (event: MskEvent, extra: { crashAfterWrites?: number; timeoutMs?: number } = {}) => ({
  event,
  requestId: 'req-1',
  deadlineMs: Date.now() + (extra.timeoutMs ?? 10_000),
  ...(extra.crashAfterWrites === undefined ? {} : { crashAfterWrites: extra.crashAfterWrites }),
});

describe('WorkerFunction', () => {
  it('returns the response and reuses the warm environment when the handler succeeds', async () => {
    const fn = workerFunction('writes');
    expect(await fn.invoke(invocation(anEvent({ writes: 2 })))).toEqual({
      kind: 'returned',
      response: { batchItemFailures: [] },
    });
    await fn.invoke(invocation(anEvent({ writes: 1 })));
    expect(upstreamWrites).toBe(3);
    expect(fn.stats.coldStarts).toBe(1);
  });

  it('kills the environment at the write after N, which is applied but never answered, when a crash is armed', async () => {
    const fn = workerFunction('writes');
    const outcome = await fn.invoke(invocation(anEvent({ writes: 10 }), { crashAfterWrites: 3 }));
    expect(outcome.kind).toBe('crashed');
    // Three answered writes and the crash write: nothing after it gets through.
    expect(upstreamWrites).toBe(4);
    await fn.invoke(invocation(anEvent({ writes: 1 })));
    expect(fn.stats.coldStarts).toBe(2);
  });

  it('loses the response when the handler finishes before its crash point', async () => {
    const fn = workerFunction('writes');
    const outcome = await fn.invoke(invocation(anEvent({ writes: 1 }), { crashAfterWrites: 5 }));
    expect(outcome.kind).toBe('crashed');
    expect(upstreamWrites).toBe(1);
  });

  it('times out and starts a cold environment next when the handler outlives its deadline', async () => {
    const fn = workerFunction('hangs');
    expect(await fn.invoke(invocation(anEvent(), { timeoutMs: 200 }))).toEqual({ kind: 'timed-out' });
    expect(await fn.invoke(invocation(anEvent(), { timeoutMs: 200 }))).toEqual({ kind: 'timed-out' });
    expect(fn.stats.coldStarts).toBe(2);
  });

  it('reports a function error with the error type when the handler throws', async () => {
    const fn = workerFunction('throws');
    expect(await fn.invoke(invocation(anEvent()))).toEqual({
      kind: 'threw',
      errorType: 'TypeError',
      errorMessage: 'no such field',
    });
  });

  it('serialises an undefined response as null, as Lambda does', async () => {
    expect(await workerFunction('nothing').invoke(invocation(anEvent()))).toEqual({
      kind: 'returned',
      response: null,
    });
  });

  it('gives the handler a Lambda-like context and its environment, with DynamoDB behind the gate', async () => {
    const outcome = await workerFunction('context').invoke(invocation(anEvent(), { timeoutMs: 5_000 }));
    expect(outcome.kind).toBe('returned');
    const seen = (outcome as { response: Record<string, unknown> }).response;
    expect(seen).toMatchObject({
      functionName: 'test-fn',
      awsRequestId: 'req-1',
      memoryLimitInMB: '1024',
      table: 'inbox-table',
    });
    expect(seen.remaining).toBeGreaterThan(0);
    expect(seen.remaining).toBeLessThanOrEqual(5_000);
    expect(seen.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.endpoint).not.toBe(upstreamEndpoint);
  });

  it('reports a function error naming the import failure when the handler export is missing', async () => {
    expect(await workerFunction('absent').invoke(invocation(anEvent()))).toEqual({
      kind: 'threw',
      errorType: 'Runtime.ImportModuleError',
      errorMessage: expect.stringMatching(/exports no function absent/),
    });
  });
});
