import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DEMO_OPTIONS } from '../../local/demo/demo-options.js';
import { type DemoResult, runDemo } from '../../local/demo/run-demo.js';
import { skipBrokerTests } from '../support/broker.js';

describe('the demo with --format avro', () => {
  let workDirectory: string;
  let result: DemoResult;

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-avro-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        format: 'avro',
        // The broker carries bytes whatever they are (test/e2e/kafka); this one runs the in-memory log.
        source: 'memory',
        events: 120,
        accounts: 10,
        poisonRate: 0.1,
        crashRate: 0.2,
        batchSize: 20,
        batchingWindowMs: 50,
        seed: 7,
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory },
    );
  }, 120_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('verifies the same way: each unique valid Avro event applied once, every poison record quarantined', () => {
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.ok).toBe(true);
    expect(result.verification.completedRows).toBe(result.events - result.poisonRecords);
    expect(result.verification.quarantineRows).toBe(result.poisonRecords);
  });

  it('quarantines garbage bytes as undecodable and Avro that fails the schema as invalid-event', () => {
    expect(result.verification.quarantineReasons.get('undecodable') ?? 0).toBeGreaterThan(0);
    expect(result.verification.quarantineReasons.get('invalid-event') ?? 0).toBeGreaterThan(0);
  });
});

describe.skipIf(skipBrokerTests)('the demo with --format avro through the local broker', () => {
  let workDirectory: string;
  let result: DemoResult;

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-avro-kafka-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        format: 'avro',
        source: 'kafka',
        events: 60,
        accounts: 10,
        poisonRate: 0.1,
        batchSize: 20,
        batchingWindowMs: 50,
        seed: 7,
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory },
    );
  }, 120_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('carries the Avro bytes through Kafka unchanged and verifies the same way', () => {
    expect(result.sourceDescription).toMatch(/^kafka /);
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.quarantineReasons.get('undecodable') ?? 0).toBeGreaterThan(0);
  });
});
