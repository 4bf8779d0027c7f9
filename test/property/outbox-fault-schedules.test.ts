/**
 * Outbox schedules as a property (docs/fault-tolerance.md#outbox-schedules): the consumer emits events
 * through its inbox's transaction while it meets the soak's faults, and the real relay publishes them
 * through crashes after the produce, after the removal and before the checkpoint, transient produce
 * failures, removal SDK failures and a poison event. Every schedule must end with `violations: 0`; a
 * failure names its replay command (`npm run soak -- --outbox --seed S`).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { formatOutboxSummary, summarizeOutbox } from '../../local/soak/outbox-summary.js';
import { scheduleSeed } from '../../local/soak/schedule.js';
import type { SoakTarget } from '../../local/soak/schedule-runner.js';
import { formatViolations, runSoak } from '../../local/soak/soak.js';
import { createTestTables } from '../support/dynamodb.js';

const SCHEDULES = 40;
const CONCURRENCY = 4;

describe('outbox fault schedules against DynamoDB Local', () => {
  let target: SoakTarget;
  const runId = randomUUID().slice(0, 8);
  beforeAll(async () => {
    const tables = await createTestTables();
    target = {
      endpoint: inject('dynamoDbEndpoint'),
      inboxTableName: tables.inboxTableName,
      appTableName: tables.appTableName,
    };
  });

  it('publishes every committed event, per key in commit order, nothing phantom, and drains the outbox', async () => {
    const sampleSeed = Date.now() % 2_147_483_647;
    const seeds = fc.sample(scheduleSeed, { seed: sampleSeed, numRuns: SCHEDULES });
    const results = await runSoak({ seeds, target, concurrency: CONCURRENCY, runId, outbox: true });

    const violations = results.flatMap((result) => result.violations);
    expect(
      violations,
      `fast-check sample seed ${sampleSeed}:\n${formatViolations(violations, 50, 'dynamodb', true)}`,
    ).toEqual([]);
    const summary = summarizeOutbox(results);
    console.info(formatOutboxSummary(summary));
    expect(summary.schedules).toBe(SCHEDULES);
    expect(summary.emitted).toBeGreaterThan(0);
    // The relay's faults were really injected, not just planned.
    for (const kind of ['crash-after-produce', 'transient-produce', 'removal-failure'] as const) {
      expect(summary.faults[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect(summary.republished).toBeGreaterThan(0);
  }, 120_000);
});
