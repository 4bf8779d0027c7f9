import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DEMO_OPTIONS } from '../../../local/demo/demo-options.js';
import { type DemoResult, runDemo } from '../../../local/demo/run-demo.js';
import { skipBrokerTests } from '../../support/broker.js';

describe.skipIf(skipBrokerTests)('the demo through the local broker', () => {
  let workDirectory: string;
  let result: DemoResult;
  const lines: string[] = [];

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-kafka-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        source: 'kafka',
        events: 200,
        accounts: 20,
        crashRate: 0.25,
        batchSize: 20,
        batchingWindowMs: 50,
        seed: 3,
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory, progress: (line) => lines.push(line), status: () => {} },
    );
  }, 120_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('applies each unique valid event exactly once, the consumer group having joined during setup', () => {
    expect(result.sourceDescription).toMatch(/^kafka \(127\.0\.0\.1:\d+\)$/);
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.ok).toBe(true);
    expect(result.esm.crashes).toBeGreaterThan(0);
    // The mock cluster holds a new group's first join for 3 s: setup includes it, processing does not.
    expect(result.setupMs).toBeGreaterThanOrEqual(2_900);
  });

  it('says how long each setup step took, the group join among them', () => {
    expect(lines.find((line) => line.startsWith('ready in '))).toMatch(
      /tables \d+\.\d s \| function bundle \d+\.\d s \| Kafka broker \+ produce \d+\.\d s \| consumer group join \d+\.\d s/,
    );
  });
});
