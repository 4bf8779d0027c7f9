/** docs/benchmarks.json: one row per scenario, contender and modelled round trip, and the deployed handler. */

import { CONSUMER_ARCHITECTURE, DEFAULT_CONSUMER_MEMORY_MB } from '../lib/function-defaults.js';
import type { RecordCost } from './cost/cost-model.js';
import { PRICES } from './cost/prices.js';
import type { StoreName } from './measure/throughput.js';
import { NETWORK_MODEL } from './network-model.js';
import type { BenchResults, ScenarioResult } from './results.js';

export interface BenchRow extends RecordCost {
  readonly scenario: string;
  readonly contender: string;
  /**
   * `dynamodb` (DynamoDB Local), `postgres` (the server bench/postgres/bench-postgres.ts started) or `redis`
   * (the redis-server bench/redis/run-redis-bench.ts started).
   */
  readonly store: StoreName;
  /** The modelled base round trip in ms (bench/network-model.ts); 0 for none: DynamoDB Local as it answers. */
  readonly rttMs: number;
  /** Median over the runs. */
  readonly recordsPerSecond: number;
  readonly recordsPerSecondMin: number;
  readonly recordsPerSecondMax: number;
  /** DynamoDB requests, Postgres statements or Redis commands per record. */
  readonly requestsPerRecord: number;
  /** DynamoDB transactions, or Postgres transactions (BEGINs), per record. */
  readonly transactionsPerRecord: number;
  readonly refusedPerRecord: number;
  readonly ratioToPowertools: number;
  /** Records of one run (the sweep runs the scenarios' first records: bench/scenarios.ts). */
  readonly records: number;
  readonly runs: number;
}

export interface BenchJson {
  readonly scenarios: readonly BenchRow[];
  readonly networkModel: typeof NETWORK_MODEL & { readonly rttSweepMs: readonly number[] };
  /** What the dollars are priced at, and where and when the prices were read. */
  readonly prices: typeof PRICES & { readonly memoryMb: number; readonly architecture: string };
  readonly bundleBytes: number;
  readonly initMs: number;
  /** The Powertools consumer's bundle and cold init, from the same run. */
  readonly powertoolsBundleBytes: number;
  readonly powertoolsInitMs: number;
  /** The same with Powertools Logger and Metrics, the logs and metrics ours writes. */
  readonly powertoolsWithTelemetryBundleBytes: number;
  readonly powertoolsWithTelemetryInitMs: number;
  /** The three imports in millions of instructions (valgrind); null where it was not installed. */
  readonly initMillionInstructions: {
    readonly ours: number;
    readonly powertools: number;
    readonly powertoolsWithTelemetry: number;
  } | null;
  readonly peakRssMb: number;
}

export function toJson(results: BenchResults): BenchJson {
  return {
    scenarios: [...results.scenarios, ...results.sweep].map(toRow),
    networkModel: { ...NETWORK_MODEL, rttSweepMs: results.rttSweepMs },
    prices: { ...PRICES, memoryMb: DEFAULT_CONSUMER_MEMORY_MB, architecture: CONSUMER_ARCHITECTURE },
    bundleBytes: results.bundle.bytes,
    initMs: round(results.coldInit.importMs.median, 1),
    powertoolsBundleBytes: results.powertools.bundle.bytes,
    powertoolsInitMs: round(results.powertools.coldInit.importMs.median, 1),
    powertoolsWithTelemetryBundleBytes: results.powertoolsWithTelemetry.bundle.bytes,
    powertoolsWithTelemetryInitMs: round(results.powertoolsWithTelemetry.coldInit.importMs.median, 1),
    initMillionInstructions: results.initInstructions
      ? {
          ours: round(results.initInstructions.ours.millions, 1),
          powertools: round(results.initInstructions.powertools.millions, 1),
          powertoolsWithTelemetry: round(results.initInstructions.powertoolsWithTelemetry.millions, 1),
        }
      : null,
    peakRssMb: round(results.peakRss.peakRssMb, 1),
  };
}

export function toRow(r: ScenarioResult): BenchRow {
  return {
    scenario: r.scenario,
    contender: r.contender,
    store: r.store,
    rttMs: r.rttMs,
    recordsPerSecond: round(r.recordsPerSecond.median, 1),
    recordsPerSecondMin: round(r.recordsPerSecond.min, 1),
    recordsPerSecondMax: round(r.recordsPerSecond.max, 1),
    requestsPerRecord: round(r.requestsPerRecord, 4),
    transactionsPerRecord: round(r.transactionsPerRecord, 4),
    refusedPerRecord: round(r.refusedPerRecord, 4),
    ...(r.writeUnitsPerRecord === undefined ? {} : { writeUnitsPerRecord: round(r.writeUnitsPerRecord, 4) }),
    ...(r.readUnitsPerRecord === undefined ? {} : { readUnitsPerRecord: round(r.readUnitsPerRecord, 4) }),
    invocationsPerRecord: round(r.invocationsPerRecord, 4),
    billedMsPerRecord: round(r.billedMsPerRecord, 4),
    gbSecondsPerRecord: round(r.gbSecondsPerRecord, 7),
    dollarsPerMillion: {
      dynamoDbWrites: round(r.dollarsPerMillion.dynamoDbWrites, 4),
      dynamoDbReads: round(r.dollarsPerMillion.dynamoDbReads, 4),
      lambdaRequests: round(r.dollarsPerMillion.lambdaRequests, 4),
      lambdaDuration: round(r.dollarsPerMillion.lambdaDuration, 4),
      total: round(r.dollarsPerMillion.total, 4),
    },
    ratioToPowertools: round(r.ratioToPowertools, 3),
    records: r.records,
    runs: r.recordsPerSecond.samples,
  };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Two-space JSON with arrays of numbers on one line, as the formatter (biome) writes them. */
export function formatJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /\[\s+([\d.,\s-]+?)\s+\]/g,
    (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  return `${text}\n`;
}
