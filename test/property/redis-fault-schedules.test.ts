/**
 * The side-effect promise under faults on Redis: a handful of the schedules `npm run soak -- --store redis`
 * runs (local/soak/schedule.ts, drawn with the ioredis faults of local/soak/redis-fault-injection.ts and
 * server restarts), against the real consumer on `redisInbox({ client })` and a durable redis-server the
 * schedules crash and restart, through the soak's runner. The 2,000-schedule proof is the soak's
 * (docs/redis.md#the-soak-on-redis); this keeps it honest in CI within a few seconds. A failure names each
 * broken schedule's seed and its replay command.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DurableRedis, RunningRedis } from '../../local/redis/redis-server.js';
import { type Schedule, scheduleFromSeed, scheduleSeed } from '../../local/soak/schedule.js';
import type { RedisSoakTarget } from '../../local/soak/schedule-result.js';
import { runSchedule } from '../../local/soak/schedule-runner.js';
import { formatSummary, formatViolations, runSoak, summarize } from '../../local/soak/soak.js';
import { redisSoakTarget } from '../../local/soak/soak-targets.js';
import { describeOnDurableRedis, describeOnRedis } from '../support/redis.js';

/** A few seconds here; the soak runs thousands. */
const SCHEDULES = 24;
/** Schedules drawn on top whose first invocation restarts the server at its first command. */
const RESTARTING_SCHEDULES = 2;
const CONCURRENCY = 6;
const RUN_ID = 'redisprop';

/** A schedule whose first primary attempt reaches its first command, and so restarts the server there. */
function restartsAtOnce(schedule: Schedule): boolean {
  const first = schedule.rounds[0]?.primary;
  if (first?.serverRestart?.atCommand !== 0 || first.outage) return false;
  const crashesFirst = first.crash?.point === 'before-claim' && first.crash.nth === 0;
  const notRunFirst = first.storeFaults.some((fault) => fault.kind === 'not-run' && fault.atCall === 0);
  return !crashesFirst && !notRunFirst;
}

/** The soak's target on the block's server, restarting it when it is durable; made in beforeAll. */
function soakTargetOn(server: () => RunningRedis | DurableRedis) {
  let target: RedisSoakTarget | undefined;
  beforeAll(() => {
    const running = server();
    target = redisSoakTarget(running.url, 'restart' in running ? running : undefined);
  });
  afterAll(() => {
    target?.harness.disconnect();
  });
  return () => {
    if (!target) throw new Error("the soak's target is made in the block's beforeAll");
    return target;
  };
}

describeOnDurableRedis('randomized side-effect fault schedules against Redis', (server) => {
  const target = soakTargetOn(server);

  it('keeps every invariant when random schedules meet crashes around the call, ioredis faults, overlapping invocations, lease takeovers and server restarts', async () => {
    const sampleSeed = Date.now() % 2_147_483_647;
    const seeds = fc.sample(scheduleSeed, { seed: sampleSeed, numRuns: SCHEDULES });
    const restarting = fc
      .sample(scheduleSeed, { seed: sampleSeed + 1, numRuns: 2_000 })
      .filter((seed) => restartsAtOnce(scheduleFromSeed(seed, 'redis')))
      .slice(0, RESTARTING_SCHEDULES);
    const results = await runSoak({
      seeds: [...seeds, ...restarting],
      target: target(),
      concurrency: CONCURRENCY,
      runId: RUN_ID,
    });

    const violations = results.flatMap((result) => result.violations);
    expect(
      violations,
      `fast-check sample seed ${sampleSeed}:\n${formatViolations(violations, 50, 'redis')}`,
    ).toEqual([]);
    const summary = summarize(results);
    console.info(formatSummary(summary, 'redis'));
    expect(summary.byMode).toEqual({ transactional: 0, 'side-effect': SCHEDULES + RESTARTING_SCHEDULES });
    expect(target().restarts?.failures).toEqual([]);
    expect(target().restarts?.performed).toBeGreaterThanOrEqual(1);
    // The faults were really injected, not just planned (each kind fires several times in 24 schedules;
    // a crash at one given point, once or twice, so the crashes around the call are counted together).
    const fired = (kind: string) => summary.faults[kind]?.['side-effect'] ?? 0;
    for (const kind of [
      'redis:answer-lost',
      'redis:not-run',
      'redis:connection-dropped',
      'redis:server-restart',
      'concurrent-invocation',
    ]) {
      expect(fired(kind), kind).toBeGreaterThan(0);
    }
    const crashesAroundTheCall = ['before-claim', 'after-claim', 'after-effect', 'after-completion'];
    expect(crashesAroundTheCall.reduce((n, point) => n + fired(`crash:${point}`), 0)).toBeGreaterThan(0);
  }, 60_000);
});

describeOnRedis('the Redis soak can fail', (server) => {
  const target = soakTargetOn(server);
  const run = (seed: number, mutation: 'unconditional-claim' | 'ack-everything') =>
    runSchedule(scheduleFromSeed(seed, 'redis'), target(), { runId: RUN_ID, mutation });

  it('reports double effects when the claim drops its condition', async () => {
    const seeds = fc.sample(scheduleSeed, { seed: 42, numRuns: 8 });
    const results = await Promise.all(seeds.map((seed) => run(seed, 'unconditional-claim')));

    const broken = new Set(results.flatMap((r) => r.violations.map((v) => v.invariant)));
    expect(broken).toContain('at-most-once-outside-the-window');
  }, 30_000);

  it('reports lost records when every batch is answered as a success', async () => {
    const seeds = fc.sample(scheduleSeed, { seed: 7, numRuns: 8 });
    const results = await Promise.all(seeds.map((seed) => run(seed, 'ack-everything')));

    const broken = new Set(results.flatMap((r) => r.violations.map((v) => v.invariant)));
    expect(broken).toContain('response-names-the-reported-records');
  }, 30_000);
});
