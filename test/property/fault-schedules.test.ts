/**
 * The promise under faults, as a property: fast-check draws the schedules (local/soak/schedule.ts, one per
 * seed); each runs the real consumer against DynamoDB Local through the same runner `npm run soak` uses.
 * A failure names each broken schedule's seed and its replay command (`npm run soak -- --seed S`).
 * Interleavings depend on DynamoDB Local's timing, so there is no shrinking: the seed replays the schedule.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { LEASE_MARGIN_MS, type Schedule, scheduleFromSeed, scheduleSeed } from '../../local/soak/schedule.js';
import { runSchedule, type SoakTarget } from '../../local/soak/schedule-runner.js';
import { formatSummary, formatViolations, runSoak, summarize } from '../../local/soak/soak.js';
import { createTestTables } from '../support/dynamodb.js';

const SCHEDULES = 200;
/** Schedules in flight at once: DynamoDB Local serves concurrent requests faster. */
const CONCURRENCY = 8;

describe('randomized fault schedules against DynamoDB Local', () => {
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

  const run = (seed: number, mutation?: 'unconditional-claim' | 'ack-everything') =>
    runSchedule(scheduleFromSeed(seed), target, { runId, ...(mutation ? { mutation } : {}) });

  it('keeps every invariant when 200 random schedules meet crashes, overlapping invocations, lease takeovers, clock skew and SDK faults', async () => {
    // fast-check draws the schedules; they run side by side, as `npm run soak` runs them.
    const sampleSeed = Date.now() % 2_147_483_647;
    const seeds = fc.sample(scheduleSeed, { seed: sampleSeed, numRuns: SCHEDULES });
    const results = await runSoak({ seeds, target, concurrency: CONCURRENCY, runId });

    const violations = results.flatMap((result) => result.violations);
    expect(violations, `fast-check sample seed ${sampleSeed}:\n${formatViolations(violations)}`).toEqual([]);
    const summary = summarize(results);
    console.info(formatSummary(summary));
    expect(summary.schedules).toBe(SCHEDULES);
    expect(summary.byMode.transactional).toBeGreaterThan(0);
    expect(summary.byMode['side-effect']).toBeGreaterThan(0);
    // The faults were really injected, not just planned.
    const fired = (kind: string) =>
      (summary.faults[kind]?.transactional ?? 0) + (summary.faults[kind]?.['side-effect'] ?? 0);
    for (const kind of [
      'crash:before-claim',
      'crash:after-claim',
      'crash:after-write',
      'crash:before-response',
      'sdk:throttling',
      'sdk:server-error',
      'sdk:timeout-after-write',
      'sdk:outage',
      'concurrent-invocation',
      'clock-skew',
      'stall:before-write',
      'seeded:expired-completed-same-payload',
      'seeded:live-lease',
    ]) {
      expect(fired(kind), kind).toBeGreaterThan(0);
    }
  }, 300_000);

  /**
   * One side-effect event; a companion invocation claims it and stalls inside the effect while true time
   * moves on by `stallMs`; then the primary, its clock `gapMs` ahead of the companion's, meets the key.
   */
  function takeoverSchedule(gapMs: number, stallMs: number): Schedule {
    return {
      seed: 1,
      mode: 'side-effect',
      topic: 'orders',
      partitions: 1,
      partitionConcurrency: 1,
      ordering: { by: 'partition' },
      events: [{ account: 0, amount: 100, headerId: true }],
      records: [{ kind: 'order', event: 0, partition: 0, variant: 'original' }],
      seededRows: [],
      rounds: [
        {
          batchSize: 1,
          partitionMask: 1,
          primary: { skewMs: gapMs / 2, storeFaults: [], outage: false },
          companion: {
            fromShare: 0,
            attempt: { skewMs: -gapMs / 2, storeFaults: [], outage: false },
            stall: { point: 'in-effect', nth: 0, advanceMs: stallMs },
          },
          advanceMs: 0,
        },
      ],
      beyondBound: gapMs >= LEASE_MARGIN_MS,
    };
  }

  it('never runs an effect twice at once, whatever the stall, when clocks differ by less than the lease margin', async () => {
    const gap = LEASE_MARGIN_MS - 100;
    // Around the companion's deadline (60 s) and its lease (60 s + 10 s margin).
    const stalls = [30_000, 55_000, 59_999, 60_000, 65_000, 69_999, 70_000, 75_000];
    const results = await Promise.all(
      stalls.map((stall) => runSchedule(takeoverSchedule(gap, stall), target, { runId })),
    );

    expect(results.flatMap((r) => r.violations)).toEqual([]);
    expect(results.map((r) => r.figures.concurrentRuns)).toEqual(stalls.map(() => 0));
    expect(results.map((r) => r.figures.effectApplications)).toEqual(stalls.map(() => 1));
  });

  it('runs an effect twice at once when clocks differ by more than the lease margin', async () => {
    const result = await runSchedule(takeoverSchedule(45_000, 50_000), target, { runId });

    expect(result.figures.concurrentRuns).toBe(1);
    expect(result.figures.extraApplications).toBe(1);
    // The same run asserted as if within the bound is a violation: the check can fail.
    const asserted = await runSchedule({ ...takeoverSchedule(45_000, 50_000), beyondBound: false }, target, {
      runId,
    });
    expect(asserted.violations.map((v) => v.invariant)).toContain('never-concurrent');
  });

  it('reports double effects when the inbox drops its claim condition', async () => {
    // Schedules with producer duplicates: without the condition every copy is applied again.
    const seeds = fc.sample(scheduleSeed, { seed: 42, numRuns: 12 });
    const results = await Promise.all(seeds.map((seed) => run(seed, 'unconditional-claim')));

    const broken = new Set(results.flatMap((r) => r.violations.map((v) => v.invariant)));
    expect([...broken].some((i) => i === 'exactly-once' || i === 'at-most-once-outside-the-window')).toBe(
      true,
    );
  }, 120_000);

  it('reports lost records when every batch is answered as a success', async () => {
    const seeds = fc.sample(scheduleSeed, { seed: 7, numRuns: 12 });
    const results = await Promise.all(seeds.map((seed) => run(seed, 'ack-everything')));

    const broken = new Set(results.flatMap((r) => r.violations.map((v) => v.invariant)));
    expect(broken).toContain('response-names-the-reported-records');
  }, 120_000);
});
