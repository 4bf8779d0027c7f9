/** Per-scenario figures aggregated over runs, and the targets the issue sets, checked against them. */
import type { ContenderName } from './contenders/contender.js';
import type { BundleMeasurement } from './measure/bundle.js';
import type { Ceiling } from './measure/ceiling.js';
import type { ColdInitMeasurement } from './measure/cold-init.js';
import type { PeakRssMeasurement } from './measure/peak-rss.js';
import { type Spread, spreadOf } from './measure/stats.js';
import type { DeliveryMeasurement } from './measure/throughput.js';
import type { ScenarioName } from './scenarios.js';

export interface ScenarioResult {
  readonly scenario: ScenarioName;
  readonly contender: string;
  readonly recordsPerSecond: Spread;
  readonly requestsPerRecord: number;
  readonly refusedPerRecord: number;
  readonly wcuPerRecord: number;
  /** Median CPU time of the bench process per record, in microseconds. */
  readonly cpuMicrosecondsPerRecord: number;
  /** Median records/s over Powertools' median records/s on the same scenario. */
  readonly ratioToPowertools: number;
  readonly byCommandPerRecord: Readonly<Record<string, number>>;
}

export interface AblationResult {
  readonly scenario: ScenarioName;
  readonly baseline: ScenarioResult;
  readonly variant: ScenarioResult;
}

export interface BenchResults {
  readonly scenarios: readonly ScenarioResult[];
  readonly ablations: readonly AblationResult[];
  readonly ceiling: Ceiling;
  /** 1-minute load average when the measurements started and when they ended: other work on the machine. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly bundle: BundleMeasurement;
  /** The same build with the SDK's default Node.js credential chain instead of lib/bundling.ts's alias. */
  readonly defaultCredentialsBundle: BundleMeasurement | undefined;
  readonly coldInit: ColdInitMeasurement;
  readonly peakRss: PeakRssMeasurement;
  readonly runs: number;
  readonly wallSeconds: number;
}

/** A delivery measured in a given run (0-based): ablations compare runs they both took part in. */
export type RunMeasurement = DeliveryMeasurement & { readonly run: number };

/** The baseline and its variant over the same runs, on the scenario the optimisation shows in. */
export function compareAblation(
  measurements: readonly RunMeasurement[],
  ablation: {
    readonly baseline: string;
    readonly variant: { readonly name: string };
    readonly scenario: string;
  },
  runs: number,
): AblationResult {
  const inRuns = measurements.filter((m) => m.run < runs && m.scenario === ablation.scenario);
  const pick = (contender: string) => {
    const [result] = aggregate(inRuns.filter((m) => m.contender === contender));
    if (!result) throw new Error(`no ${contender} measurement on ${ablation.scenario}`);
    return result;
  };
  return {
    scenario: ablation.scenario as ScenarioName,
    baseline: pick(ablation.baseline),
    variant: pick(ablation.variant.name),
  };
}

export function aggregate(measurements: readonly DeliveryMeasurement[]): ScenarioResult[] {
  const groups = new Map<string, DeliveryMeasurement[]>();
  for (const measurement of measurements) {
    const key = `${measurement.scenario}\u0000${measurement.contender}`;
    groups.set(key, [...(groups.get(key) ?? []), measurement]);
  }
  const partial = [...groups.values()].map((group) => {
    const first = group[0] as DeliveryMeasurement;
    const records = group.reduce((sum, m) => sum + m.records, 0);
    const byCommand: Record<string, number> = {};
    for (const m of group) {
      for (const [command, count] of Object.entries(m.tally.byCommand)) {
        byCommand[command] = (byCommand[command] ?? 0) + count / records;
      }
    }
    return {
      scenario: first.scenario,
      contender: first.contender,
      recordsPerSecond: spreadOf(group.map((m) => (m.records / m.milliseconds) * 1000)),
      // Per record over all runs: requests are deterministic, but retries would show here.
      requestsPerRecord: group.reduce((sum, m) => sum + m.tally.requests, 0) / records,
      refusedPerRecord: group.reduce((sum, m) => sum + m.tally.refused, 0) / records,
      wcuPerRecord: group.reduce((sum, m) => sum + m.tally.wcu, 0) / records,
      cpuMicrosecondsPerRecord: spreadOf(group.map((m) => (m.cpuMilliseconds * 1000) / m.records)).median,
      byCommandPerRecord: byCommand,
    };
  });
  return partial.map((result) => {
    const powertools = partial.find((p) => p.scenario === result.scenario && p.contender === 'powertools');
    return {
      ...result,
      ratioToPowertools: powertools
        ? result.recordsPerSecond.median / powertools.recordsPerSecond.median
        : Number.NaN,
    };
  });
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/** 300 KB as the lead measures bundles (KiB: ~396 KB today is 405,285 bytes). */
export const BUNDLE_LIMIT_BYTES = 300 * 1024;
export const INIT_LIMIT_MS = 150;

export function checkTargets(results: BenchResults): TargetCheck[] {
  const find = (scenario: ScenarioName, contender: ContenderName) => {
    const found = results.scenarios.find((r) => r.scenario === scenario && r.contender === contender);
    if (!found) throw new Error(`no result for ${contender} on ${scenario}`);
    return found;
  };
  const txNew = find('new-4p', 'inbox-tx');
  const txRedelivery = find('redelivery-4p', 'inbox-tx');
  const txKeys = find('keys-1p', 'inbox-tx');
  const perKeyKeys = find('keys-1p', 'inbox-tx-per-key');
  const keyRatio = perKeyKeys.recordsPerSecond.median / txKeys.recordsPerSecond.median;
  return [
    {
      target: 'inbox-tx: at most 1.0 DynamoDB request per new record (new-4p)',
      measured: txNew.requestsPerRecord.toFixed(3),
      met: txNew.requestsPerRecord <= 1.0,
    },
    {
      target: 'inbox-tx: at most 0.05 requests per record on redelivery (redelivery-4p)',
      measured: txRedelivery.requestsPerRecord.toFixed(3),
      met: txRedelivery.requestsPerRecord <= 0.05,
    },
    {
      target: 'inbox-tx: at least 2x Powertools throughput on new-4p',
      measured: `${txNew.ratioToPowertools.toFixed(2)}x`,
      met: txNew.ratioToPowertools >= 2,
    },
    {
      target: 'inbox-tx-per-key: at least 4x inbox-tx on keys-1p',
      measured: `${keyRatio.toFixed(2)}x`,
      met: keyRatio >= 4,
    },
    {
      target: 'bundle: at most 300 KB minified (as deployed by lib/bundling.ts)',
      measured: `${(results.bundle.bytes / 1024).toFixed(1)} KB (${results.bundle.bytes} bytes)`,
      met: results.bundle.bytes <= BUNDLE_LIMIT_BYTES,
    },
    {
      target: 'cold init: at most 150 ms median (import of the bundle)',
      measured: `${results.coldInit.importMs.median.toFixed(1)} ms`,
      met: results.coldInit.importMs.median <= INIT_LIMIT_MS,
    },
  ];
}
