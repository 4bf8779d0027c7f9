import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { firedAlarms } from '../../local/dashboard/local-dashboard.js';
import { DEFAULT_DEMO_OPTIONS } from '../../local/demo/demo-options.js';
import { type DemoResult, runDemo } from '../../local/demo/run-demo.js';
import { EVERY_FAULT_DEMO } from '../support/demo-workloads.js';

describe('the demo, end to end with crashes and duplicates', () => {
  let workDirectory: string;
  let result: DemoResult;

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-e2e-'));
    result = await runDemo(
      {
        ...DEFAULT_DEMO_OPTIONS,
        ...EVERY_FAULT_DEMO,
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      },
      { workDirectory },
    );
  }, 120_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('applies each unique valid event exactly once and loses nothing when environments crash mid-batch', () => {
    expect(result.verification.problems).toEqual([]);
    expect(result.verification.ok).toBe(true);
    expect(result.verification.completedRows).toBe(result.events - result.poisonRecords);
  });

  it('quarantines every poison record when the workload has some', () => {
    expect(result.poisonRecords).toBeGreaterThan(0);
    expect(result.verification.quarantineRows).toBe(result.poisonRecords);
  });

  it('meets every injected fault when the rates are high', () => {
    expect(result.producerDuplicates).toBeGreaterThan(0);
    expect(result.esm.crashes).toBeGreaterThan(0);
    expect(result.esm.duplicateDeliveries).toBeGreaterThan(0);
    expect(result.esm.overlappingInvocations).toBeGreaterThan(0);
    expect(result.esm.redeliveredRecords).toBeGreaterThan(0);
    expect(result.functionMetrics.get('Duplicates') ?? 0).toBeGreaterThan(0);
  });

  it('gives up on no record when every failure is transient', () => {
    expect(result.esm.destinationRecords).toBe(0);
  });

  it("says the stack's Quarantined alarm would have fired on the poison records, from EMF CloudWatch accepts", () => {
    expect(result.dashboard.emfProblems).toEqual([]);
    expect(firedAlarms(result.dashboard.alarms).map((alarm) => alarm.name)).toContain('Quarantined');
  });
});
