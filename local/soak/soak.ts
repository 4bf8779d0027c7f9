/**
 * Runs many schedules at once against one store, DynamoDB, Postgres or Redis (each schedule on its own consumer
 * name and key prefix), and sums up what happened: the figures `npm run soak` prints and the property
 * tests assert on.
 */

import type { Mode } from './mode.js';
import { type Schedule, type SoakStoreKind, scheduleFromSeed } from './schedule.js';
import { storeOf } from './schedule-result.js';
import {
  runSchedule,
  type ScheduleResult,
  type SoakTarget,
  type Violation,
  type WindowCause,
} from './schedule-runner.js';
import { STORE_CLIENTS } from './store-faults.js';

export interface SoakOptions {
  readonly seeds: readonly number[];
  readonly target: SoakTarget;
  /** Schedules in flight at once. */
  readonly concurrency: number;
  readonly runId: string;
  readonly trace?: boolean;
  /** Outbox schedules (schedule-runner.ts RunOptions.outbox). */
  readonly outbox?: boolean;
  readonly onResult?: (result: ScheduleResult, done: number) => void;
}

export async function runSoak(options: SoakOptions): Promise<ScheduleResult[]> {
  const results: ScheduleResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.seeds.length) {
      const seed = options.seeds[next++] as number;
      const schedule = scheduleFromSeed(seed, storeOf(options.target), { outbox: options.outbox ?? false });
      const result = await runSchedule(schedule, options.target, {
        runId: options.runId,
        ...(options.trace ? { trace: true } : {}),
        ...(options.outbox ? { outbox: true } : {}),
      }).catch((error: unknown) => failedRun(schedule, error));
      results.push(result);
      options.onResult?.(result, results.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return results;
}

/** A schedule the runner itself could not finish counts as a violation, with its seed to replay. */
function failedRun(schedule: Schedule, error: unknown): ScheduleResult {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    seed: schedule.seed,
    mode: schedule.mode,
    beyondBound: schedule.beyondBound,
    violations: [{ seed: schedule.seed, invariant: 'schedule-ran-to-the-end', detail }],
    faults: {},
    figures: {
      events: schedule.events.length,
      records: schedule.records.length,
      producerDuplicates: 0,
      payloadConflicts: 0,
      malformedRecords: 0,
      seededRows: 0,
      invocations: 0,
      deliveredRecords: 0,
      settleRounds: 0,
      finalOutcomes: {},
      effectApplications: 0,
      extraApplications: 0,
      windowHits: {},
      concurrentRuns: 0,
      leaseTakeovers: 0,
      groupCommits: 0,
      groupedRecords: 0,
    },
    trace: [],
  };
}

export interface SoakSummary {
  readonly schedules: number;
  readonly byMode: Record<Mode, number>;
  readonly beyondBound: number;
  readonly events: number;
  readonly records: number;
  readonly producerDuplicates: number;
  readonly payloadConflicts: number;
  readonly malformedRecords: number;
  readonly invocations: number;
  readonly deliveredRecords: number;
  readonly leaseTakeovers: Record<Mode, number>;
  /** Transactions that committed several records at once, and the records they carried. */
  readonly groupCommits: number;
  readonly groupedRecords: number;
  /** Kind → count per mode. */
  readonly faults: Record<string, Record<Mode, number>>;
  readonly finalOutcomes: Record<string, number>;
  /** Side-effect mode within the skew bound. */
  readonly sideEffect: {
    readonly events: number;
    readonly applications: number;
    readonly extraApplications: number;
    readonly windowHits: Partial<Record<WindowCause, number>>;
    /** Faults that fired in these schedules, by kind. */
    readonly faults: Record<string, number>;
  };
  /** Side-effect schedules beyond the skew bound (measured, not asserted). */
  readonly beyond: {
    readonly events: number;
    readonly extraApplications: number;
    readonly concurrentRuns: number;
  };
  readonly violations: Violation[];
}

export function summarize(results: readonly ScheduleResult[]): SoakSummary {
  const faults: Record<string, Record<Mode, number>> = {};
  const finalOutcomes: Record<string, number> = {};
  const windowHits: Partial<Record<WindowCause, number>> = {};
  const sideEffectFaults: Record<string, number> = {};
  const sum = (pick: (r: ScheduleResult) => number, filter: (r: ScheduleResult) => boolean = () => true) =>
    results.filter(filter).reduce((n, r) => n + pick(r), 0);
  const withinSideEffect = (r: ScheduleResult) => r.mode === 'side-effect' && !r.beyondBound;
  const beyond = (r: ScheduleResult) => r.mode === 'side-effect' && r.beyondBound;
  for (const result of results) {
    for (const [kind, count] of Object.entries(result.faults)) {
      faults[kind] ??= { transactional: 0, 'side-effect': 0 };
      faults[kind][result.mode] += count;
    }
    for (const [status, count] of Object.entries(result.figures.finalOutcomes)) {
      finalOutcomes[status] = (finalOutcomes[status] ?? 0) + (count ?? 0);
    }
    if (withinSideEffect(result)) {
      for (const [kind, count] of Object.entries(result.faults)) {
        sideEffectFaults[kind] = (sideEffectFaults[kind] ?? 0) + count;
      }
      for (const [cause, count] of Object.entries(result.figures.windowHits) as [WindowCause, number][]) {
        windowHits[cause] = (windowHits[cause] ?? 0) + count;
      }
    }
  }
  return {
    schedules: results.length,
    byMode: {
      transactional: results.filter((r) => r.mode === 'transactional').length,
      'side-effect': results.filter((r) => r.mode === 'side-effect').length,
    },
    beyondBound: results.filter(beyond).length,
    events: sum((r) => r.figures.events),
    records: sum((r) => r.figures.records),
    producerDuplicates: sum((r) => r.figures.producerDuplicates),
    payloadConflicts: sum((r) => r.figures.payloadConflicts),
    malformedRecords: sum((r) => r.figures.malformedRecords),
    invocations: sum((r) => r.figures.invocations),
    deliveredRecords: sum((r) => r.figures.deliveredRecords),
    leaseTakeovers: {
      transactional: sum(
        (r) => r.figures.leaseTakeovers,
        (r) => r.mode === 'transactional',
      ),
      'side-effect': sum(
        (r) => r.figures.leaseTakeovers,
        (r) => r.mode === 'side-effect',
      ),
    },
    groupCommits: sum((r) => r.figures.groupCommits),
    groupedRecords: sum((r) => r.figures.groupedRecords),
    faults,
    finalOutcomes,
    sideEffect: {
      events: sum((r) => r.figures.events, withinSideEffect),
      applications: sum((r) => r.figures.effectApplications, withinSideEffect),
      extraApplications: sum((r) => r.figures.extraApplications, withinSideEffect),
      windowHits,
      faults: sideEffectFaults,
    },
    beyond: {
      events: sum((r) => r.figures.events, beyond),
      extraApplications: sum((r) => r.figures.extraApplications, beyond),
      concurrentRuns: sum((r) => r.figures.concurrentRuns, beyond),
    },
    violations: results.flatMap((r) => r.violations),
  };
}

/** The replay command of a schedule. */
export function replayCommand(seed: number, store: SoakStoreKind = 'dynamodb', outbox = false): string {
  return `npm run soak -- ${store === 'dynamodb' ? '' : `--store ${store} `}${outbox ? '--outbox ' : ''}--seed ${seed}`;
}

export function formatViolations(
  violations: readonly Violation[],
  limit = 50,
  store: SoakStoreKind = 'dynamodb',
  outbox = false,
): string {
  const lines = violations
    .slice(0, limit)
    .map(
      (v) =>
        `  seed ${v.seed} [${v.invariant}] ${v.detail}  (replay: ${replayCommand(v.seed, store, outbox)})`,
    );
  if (violations.length > limit) lines.push(`  … and ${violations.length - limit} more`);
  return lines.join('\n');
}

export function formatSummary(
  summary: SoakSummary,
  store: SoakStoreKind = 'dynamodb',
  outbox = false,
): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const lines: string[] = [];
  lines.push(
    `schedules run: ${n(summary.schedules)} (transactional ${n(summary.byMode.transactional)}, side-effect ${n(
      summary.byMode['side-effect'],
    )}, of which ${n(summary.beyondBound)} beyond the skew bound)`,
  );
  lines.push(
    `events: ${n(summary.events)} unique in ${n(summary.records)} records (producer duplicates ${n(
      summary.producerDuplicates,
    )}, payload conflicts ${n(summary.payloadConflicts)}, malformed ${n(summary.malformedRecords)}); ${n(
      summary.invocations,
    )} invocations delivered ${n(summary.deliveredRecords)} records`,
  );
  lines.push('faults injected by kind:');
  lines.push(
    `  ${'kind'.padEnd(40)}${'transactional'.padStart(14)}${'side-effect'.padStart(14)}${'total'.padStart(10)}`,
  );
  const kinds = Object.keys(summary.faults).sort();
  for (const kind of kinds) {
    const counts = summary.faults[kind] as Record<Mode, number>;
    lines.push(
      `  ${kind.padEnd(40)}${n(counts.transactional).padStart(14)}${n(counts['side-effect']).padStart(14)}${n(
        counts.transactional + counts['side-effect'],
      ).padStart(10)}`,
    );
  }
  // Not faults: the setting of a schedule, and (Postgres) the stage a crash had reached and server errors
  // nobody injected.
  const faultTotal = kinds
    .filter(
      (k) =>
        !k.startsWith('seeded:') &&
        !k.startsWith('stage:') &&
        !k.startsWith('observed:') &&
        k !== 'clock-skew' &&
        k !== 'concurrent-invocation',
    )
    .reduce(
      (total, k) =>
        total + (summary.faults[k]?.transactional ?? 0) + (summary.faults[k]?.['side-effect'] ?? 0),
      0,
    );
  lines.push(`  (crashes, ${STORE_CLIENTS[store]}, external and stall faults: ${n(faultTotal)})`);
  lines.push(
    `lease expiry and takeover: ${n(summary.leaseTakeovers.transactional + summary.leaseTakeovers['side-effect'])} keys taken over once their holder's lease ran out (transactional ${n(summary.leaseTakeovers.transactional)}, side-effect ${n(summary.leaseTakeovers['side-effect'])})`,
    `group commit: ${n(summary.groupCommits)} transactions committed ${n(summary.groupedRecords)} records together (TRANSACT_GROUP_MAX_RECORDS at its default)`,
  );
  lines.push(
    `final outcomes: ${Object.entries(summary.finalOutcomes)
      .sort()
      .map(([status, count]) => `${status} ${n(count)}`)
      .join(', ')}`,
  );
  const se = summary.sideEffect;
  const perThousand = se.events > 0 ? ((1000 * se.extraApplications) / se.events).toFixed(2) : '0';
  lines.push(
    `side-effect window (within the skew bound): ${n(se.applications)} external calls for ${n(se.events)} events; ${n(
      se.extraApplications,
    )} applied again (${perThousand} per 1,000 events)`,
  );
  const causes = Object.entries(se.windowHits).sort();
  lines.push(
    `  by cause: ${causes.length > 0 ? causes.map(([c, k]) => `${c} ${n(k ?? 0)}`).join(', ') : 'none'}`,
  );
  const randomWriteCrashes = se.faults['crash:after-write'] ?? 0;
  const randomWriteHits = se.windowHits['crash-at-random-write'] ?? 0;
  if (randomWriteCrashes > 0) {
    lines.push(
      `  a crash after a random write lands in the window: ${n(randomWriteHits)} of ${n(randomWriteCrashes)} (${(
        (100 * randomWriteHits) / randomWriteCrashes
      ).toFixed(1)}%)`,
    );
  }
  const effectCrashes = se.faults['crash:after-effect'] ?? 0;
  if (effectCrashes > 0) {
    lines.push(
      `  crashes right after an external call: ${n(effectCrashes)}; calls they left without a completion (with other partitions' calls in flight at that moment), each applied again: ${n(se.windowHits['crash-after-effect'] ?? 0)}`,
    );
  }
  lines.push(
    `beyond the skew bound (not asserted): ${n(summary.beyond.events)} events, ${n(
      summary.beyond.concurrentRuns,
    )} concurrent runs, ${n(summary.beyond.extraApplications)} applied again`,
  );
  lines.push(`violations: ${summary.violations.length}`);
  if (summary.violations.length > 0) lines.push(formatViolations(summary.violations, 50, store, outbox));
  return lines.join('\n');
}
