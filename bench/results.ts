/** Per-scenario figures aggregated over runs, at each modelled round trip. */
import { dollarsPerMillionEvents, gbSeconds, type RecordCost } from './cost/cost-model.js';
import type { BundleMeasurement } from './measure/bundle.js';
import type { Ceiling } from './measure/ceiling.js';
import type { ColdInitMeasurement } from './measure/cold-init.js';
import type { DecodeCostMeasurement } from './measure/decode-cost.js';
import type { InitInstructions } from './measure/init-instructions.js';
import type { PeakRssMeasurement } from './measure/peak-rss.js';
import { type Spread, spreadOf } from './measure/stats.js';
import type { DeliveryMeasurement, StoreName } from './measure/throughput.js';
import type { ScenarioName } from './scenarios.js';

export interface ScenarioResult extends RecordCost {
  readonly scenario: ScenarioName;
  readonly contender: string;
  /** Where the inbox (and the effect's writes, if any) lived: DynamoDB Local, or the bench's Postgres or Redis. */
  readonly store: StoreName;
  /** The modelled base round trip; 0 for none. */
  readonly rttMs: number;
  /** Records of one run of the scenario (the sweep runs prefixes: bench/scenarios.ts). */
  readonly records: number;
  readonly recordsPerSecond: Spread;
  /** DynamoDB requests, Postgres statements or Redis commands (each a round trip), per record. */
  readonly requestsPerRecord: number;
  /** DynamoDB transactions (TransactWriteItems, TransactGetItems), or Postgres BEGINs, per record. */
  readonly transactionsPerRecord: number;
  readonly refusedPerRecord: number;
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

/** A peer's Lambda entry as the bench bundles and cold-starts it. */
export interface DeployedPeer {
  readonly bundle: BundleMeasurement;
  readonly coldInit: ColdInitMeasurement;
}

export interface BenchResults {
  /** At rttMs 0: DynamoDB Local as it answers. */
  readonly scenarios: readonly ScenarioResult[];
  /** At each swept rttMs above 0, in that order. */
  readonly sweep: readonly ScenarioResult[];
  readonly rttSweepMs: readonly number[];
  readonly sweepRuns: number;
  readonly ablations: readonly AblationResult[];
  readonly ceiling: Ceiling;
  /** 1-minute load average when the measurements started and when they ended: other work on the machine. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly bundle: BundleMeasurement;
  /** The same build with the SDK's default Node.js credential chain instead of lib/bundling.ts's alias. */
  readonly defaultCredentialsBundle: BundleMeasurement | undefined;
  readonly coldInit: ColdInitMeasurement;
  /** The Powertools contender deployed as a function (bench/contenders/powertools-handler.ts), built and
   * cold-started the same way, its processes in turns with ours. */
  readonly powertools: DeployedPeer;
  /** The same with Powertools Logger and Metrics (powertools-telemetry-handler.ts): what ours does at init. */
  readonly powertoolsWithTelemetry: DeployedPeer;
  /** The three imports counted in instructions under valgrind; undefined where it is not installed. */
  readonly initInstructions:
    | Readonly<Record<'ours' | 'powertools' | 'powertoolsWithTelemetry', InitInstructions>>
    | undefined;
  readonly peakRss: PeakRssMeasurement;
  /** One value at the edge of its format's decode budget, and hostile ones refused. */
  readonly decodeCost: DecodeCostMeasurement;
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
  const inRuns = measurements.filter(
    (m) => m.run < runs && m.rttMs === 0 && m.scenario === ablation.scenario,
  );
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
    const key = `${measurement.store}\u0000${measurement.scenario}\u0000${measurement.contender}\u0000${measurement.rttMs}`;
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
      store: first.store,
      rttMs: first.rttMs,
      records: first.records,
      recordsPerSecond: spreadOf(group.map((m) => (m.records / m.milliseconds) * 1000)),
      // Per record over all runs: requests are deterministic, but retries would show here.
      requestsPerRecord: group.reduce((sum, m) => sum + m.tally.requests, 0) / records,
      transactionsPerRecord: group.reduce((sum, m) => sum + m.tally.transactions, 0) / records,
      refusedPerRecord: group.reduce((sum, m) => sum + m.tally.refused, 0) / records,
      ...costOf(group, records),
      cpuMicrosecondsPerRecord: spreadOf(group.map((m) => (m.cpuMilliseconds * 1000) / m.records)).median,
      byCommandPerRecord: byCommand,
    };
  });
  return partial.map((result) => {
    const powertools = partial.find(
      (p) => p.scenario === result.scenario && p.rttMs === result.rttMs && p.contender === 'powertools',
    );
    return {
      ...result,
      ratioToPowertools: powertools
        ? result.recordsPerSecond.median / powertools.recordsPerSecond.median
        : Number.NaN,
    };
  });
}

/** The cost figures of a group of measurements of one contender, scenario and round trip. */
function costOf(group: readonly DeliveryMeasurement[], records: number) {
  const per = (of: (m: DeliveryMeasurement) => number) => group.reduce((sum, m) => sum + of(m), 0) / records;
  const priced = group.every((m) => m.capacity !== undefined);
  const dynamoDb = priced
    ? {
        writeUnits: per((m) => m.capacity?.writeUnits ?? 0),
        readUnits: per((m) => m.capacity?.readUnits ?? 0),
      }
    : undefined;
  const invocations = per((m) => m.invocations);
  const billedMilliseconds = per((m) => m.billedMilliseconds);
  return {
    ...(dynamoDb ? { writeUnitsPerRecord: dynamoDb.writeUnits, readUnitsPerRecord: dynamoDb.readUnits } : {}),
    invocationsPerRecord: invocations,
    billedMsPerRecord: billedMilliseconds,
    gbSecondsPerRecord: gbSeconds(billedMilliseconds),
    dollarsPerMillion: dollarsPerMillionEvents({
      ...(dynamoDb ? { dynamoDb } : {}),
      invocations,
      billedMilliseconds,
    }),
  };
}

/** 300 KB as the lead measures bundles (KiB: ~396 KB today is 405,285 bytes). */
export const BUNDLE_LIMIT_BYTES = 300 * 1024;
export const INIT_LIMIT_MS = 150;
