/**
 * `npm start -- --store redis`, end to end: the sample notification consumer's bundle, run by the local
 * runtime through the ESM emulator with crashes, duplicates and overlapping invocations, its inbox in
 * redis-server and its calls counted by the receiver in the demo. The demo starts its own server, as
 * `npm start` does; describeOnRedis decides whether the file runs (test/support/redis.ts). Without
 * redis-server the demo's one line is test/e2e/local-processes.test.ts's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { DEFAULT_DEMO_OPTIONS } from '../../local/demo/demo-options.js';
import { type DemoResult, runDemo } from '../../local/demo/run-demo.js';
import { formatSummary } from '../../local/demo/summary.js';
import { EVERY_FAULT_DEMO } from '../support/demo-workloads.js';
import { describeOnRedis } from '../support/redis.js';

describeOnRedis('the demo on Redis, end to end with crashes and duplicates', () => {
  let workDirectory: string;
  let result: DemoResult;

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-redis-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        ...EVERY_FAULT_DEMO,
        store: 'redis',
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory },
    );
  }, 120_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('makes each unique valid event’s call exactly once despite producer duplicates and redeliveries', () => {
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.checked).toEqual({
      kind: 'calls',
      events: result.events - result.poisonRecords,
      calls: result.events - result.poisonRecords,
    });
    expect(result.verification.completedRows).toBe(result.events - result.poisonRecords);
    expect(result.producerDuplicates).toBeGreaterThan(0);
    expect(result.esm.redeliveredRecords).toBeGreaterThan(0);
    expect(result.esm.overlappingInvocations).toBeGreaterThan(0);
    expect(result.functionMetrics.get('Duplicates') ?? 0).toBeGreaterThan(0);
  });

  it('quarantines every poison record in Redis', () => {
    expect(result.poisonRecords).toBeGreaterThan(0);
    expect(result.verification.quarantineRows).toBe(result.poisonRecords);
  });

  it('says which store it ran on and ends verified', () => {
    const summary = formatSummary(result);
    expect(summary).toMatch(/store\s+Redis \(redis-server\)/);
    expect(summary).toContain('function log  ');
    expect(summary).toContain('notification-consumer.log');
    expect(summary.split('\n').at(-1)).toMatch(
      /^verified: each of the \d+ unique valid events made its call exactly once/,
    );
  });
});
