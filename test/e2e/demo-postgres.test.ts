/**
 * `npm start -- --store postgres`, end to end: the sample's Postgres bundle, run by the local runtime
 * through the ESM emulator with crashes, duplicates and overlapping invocations, against PGlite.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DEMO_OPTIONS } from '../../local/demo/demo-options.js';
import { type DemoResult, runDemo } from '../../local/demo/run-demo.js';
import { formatSummary } from '../../local/demo/summary.js';
import { EVERY_FAULT_DEMO } from '../support/demo-workloads.js';

describe('the demo on Postgres, end to end with crashes and duplicates', () => {
  let workDirectory: string;
  let result: DemoResult;

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-pg-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        ...EVERY_FAULT_DEMO,
        store: 'postgres',
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory },
    );
  }, 180_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('applies each unique valid event exactly once in Postgres when environments crash mid-batch', () => {
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.completedRows).toBe(result.events - result.poisonRecords);
    expect(result.esm.crashes).toBeGreaterThan(0);
    expect(result.esm.redeliveredRecords).toBeGreaterThan(0);
  });

  it('quarantines every poison record in the store Postgres keeps', () => {
    expect(result.poisonRecords).toBeGreaterThan(0);
    expect(result.verification.quarantineRows).toBe(result.poisonRecords);
  });

  it('says which store it ran on and ends verified', () => {
    const summary = formatSummary(result);
    expect(summary).toMatch(/store\s+Postgres \(PGlite, embedded\)/);
    expect(summary.split('\n').at(-1)).toMatch(/^verified: /);
  });
});
