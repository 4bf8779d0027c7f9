/**
 * The promise under faults on Postgres: the schedules of test/property/fault-schedules.test.ts, drawn with
 * the `pg` boundary's faults (local/soak/postgres-fault-injection.ts), against the real consumer on
 * `postgresInbox` with the sample's SQL effect, through the runner `npm run soak -- --store postgres`
 * uses. On Debian's Postgres (sessions and row locks of their own) and on PGlite (one session: fewer
 * schedules, which take turns). A failure names each broken schedule's seed and its replay command.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { scheduleFromSeed, scheduleSeed } from '../../local/soak/schedule.js';
import { runSchedule } from '../../local/soak/schedule-runner.js';
import { formatSummary, formatViolations, runSoak, summarize } from '../../local/soak/soak.js';
import { describeOnDebianPostgres, describeOnPostgres } from '../support/postgres.js';
import { postgresSoakTarget } from '../support/postgres-soak.js';

/** About 40 s on Debian's Postgres (100 make every fault kind fire); PGlite's one session runs fewer. */
const SCHEDULES = { postgresql: 100, pglite: 15 } as const;
const CONCURRENCY = { postgresql: 6, pglite: 2 } as const;

describeOnPostgres('randomized fault schedules against Postgres', (server) => {
  const soak = postgresSoakTarget(server);

  it('keeps every invariant when random schedules meet crashes inside transactions, dropped connections, lost COMMIT answers, timeouts, serialization failures, deadlocks, overlapping invocations and lease takeovers', async () => {
    const count = SCHEDULES[server.kind];
    const sampleSeed = Date.now() % 2_147_483_647;
    const seeds = fc.sample(scheduleSeed, { seed: sampleSeed, numRuns: count });
    const results = await runSoak({
      seeds,
      target: soak.target(),
      concurrency: CONCURRENCY[server.kind],
      runId: soak.runId,
    });

    const violations = results.flatMap((result) => result.violations);
    expect(
      violations,
      `fast-check sample seed ${sampleSeed}:\n${formatViolations(violations, 50, 'postgres')}`,
    ).toEqual([]);
    const summary = summarize(results);
    console.info(`${server.kind}:\n${formatSummary(summary, 'postgres')}`);
    expect(summary.schedules).toBe(count);
    expect(summary.byMode.transactional).toBeGreaterThan(0);
    expect(summary.byMode['side-effect']).toBeGreaterThan(0);
    if (server.kind === 'pglite') return;
    // The faults were really injected, not just planned (on the larger run).
    const fired = (kind: string) =>
      (summary.faults[kind]?.transactional ?? 0) + (summary.faults[kind]?.['side-effect'] ?? 0);
    for (const kind of [
      'crash:before-claim',
      'crash:after-claim',
      'crash:inside-transaction',
      'crash:after-write',
      'crash:before-response',
      'pg:statement-timeout',
      'pg:serialization-failure',
      'pg:deadlock',
      'pg:connection-dropped',
      'pg:answer-lost',
      'pg:commit-refused',
      'pg:outage',
      'concurrent-invocation',
      'stall:before-write',
      'seeded:live-lease',
    ]) {
      expect(fired(kind), kind).toBeGreaterThan(0);
    }
  }, 300_000);
});

describeOnDebianPostgres('the Postgres soak can fail', (server) => {
  const soak = postgresSoakTarget(server);
  const run = (seed: number, mutation: 'unconditional-claim' | 'ack-everything') =>
    runSchedule(scheduleFromSeed(seed, 'postgres'), soak.target(), { runId: soak.runId, mutation });

  it('reports double effects when the inbox INSERT drops its condition', async () => {
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
