/**
 * The Postgres contenders on the DynamoDB contenders' scenarios: one server for the run (bench-postgres.ts),
 * a warm-up, the full-size sequences at rttMs 0 (`runs` times, contenders rotated), then the sweep's prefixes
 * at each modelled round trip.
 */
import { loadavg } from 'node:os';
import type { PostgresKind } from '../../local/postgres/running-postgres.js';
import { POSTGRES_CONTENDERS } from '../contenders/index.js';
import type { DeliveryMeasurement } from '../measure/throughput.js';
import { aggregate, type ScenarioResult } from '../results.js';
import { buildSequences, rotate, warmUpSequence } from '../scenarios.js';
import { runPostgresSequence, startBenchPostgres } from './bench-postgres.js';
import { describePostgresNetworkModel } from './postgres-network-model.js';

export interface PostgresBenchOptions {
  /** Runs of the full-size sequences at rttMs 0. */
  readonly runs: number;
  /** Runs of a sequence marked `fewerRuns` (hot-1p). */
  readonly fewerRuns: number;
  /** Modelled round trips above 0, each run on the sweep's prefixes. */
  readonly rttSweepMs: readonly number[];
  readonly sweepRuns: number;
  readonly progress: (message: string) => void;
}

export interface PostgresBenchResults {
  /** Which server answered, as bench-postgres.ts describes it. */
  readonly server: string;
  readonly kind: PostgresKind;
  /** At rttMs 0: the local server as it answers. */
  readonly scenarios: readonly ScenarioResult[];
  /** At each swept rttMs above 0. */
  readonly sweep: readonly ScenarioResult[];
  readonly rttSweepMs: readonly number[];
  readonly runs: number;
  readonly sweepRuns: number;
  /** 1-minute load average when the measurements started and ended: other work on the machine. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly wallSeconds: number;
}

export async function runPostgresBench(options: PostgresBenchOptions): Promise<PostgresBenchResults> {
  const { progress } = options;
  const startedMs = performance.now();
  progress('starting Postgres for the Postgres contenders');
  const server = await startBenchPostgres();
  try {
    progress(`Postgres: ${server.description}`);
    progress('warming up: every Postgres contender once (not measured)');
    for (const contender of POSTGRES_CONTENDERS) {
      await runPostgresSequence(contender, warmUpSequence(), { server, verify: true, rttMs: 0 });
    }
    const loadBefore = loadavg()[0] ?? 0;
    const measurements: DeliveryMeasurement[] = [];
    const report = (label: string, name: string, measured: readonly DeliveryMeasurement[]) =>
      progress(
        `${label} ${name.padEnd(19)} ${measured
          .map((m) => `${m.scenario} ${((m.records / m.milliseconds) * 1000).toFixed(0)} rec/s`)
          .join(', ')}`,
      );
    const sequences = buildSequences();
    for (let run = 0; run < options.runs; run += 1) {
      for (const [index, sequence] of sequences.entries()) {
        if (sequence.fewerRuns && run >= options.fewerRuns) continue;
        for (const contender of rotate(POSTGRES_CONTENDERS, run + index)) {
          // Exactly-once checked on the first run; later runs repeat the same work.
          const measured = await runPostgresSequence(contender, sequence, {
            server,
            verify: run === 0,
            rttMs: 0,
          });
          measurements.push(...measured);
          report(`run ${run + 1}/${options.runs}`, contender.name, measured);
        }
      }
    }
    if (options.rttSweepMs.length > 0) progress(`Postgres network model: ${describePostgresNetworkModel()}`);
    const sweepSequences = buildSequences('sweep');
    for (let run = 0; run < options.sweepRuns; run += 1) {
      for (const rttMs of options.rttSweepMs) {
        for (const [index, sequence] of sweepSequences.entries()) {
          for (const contender of rotate(POSTGRES_CONTENDERS, run + index)) {
            const measured = await runPostgresSequence(contender, sequence, {
              server,
              verify: run === 0,
              rttMs,
            });
            measurements.push(...measured);
            report(
              `rttMs ${String(rttMs).padEnd(3)} run ${run + 1}/${options.sweepRuns}`,
              contender.name,
              measured,
            );
          }
        }
      }
    }
    return {
      server: server.description,
      kind: server.kind,
      scenarios: aggregate(measurements.filter((m) => m.rttMs === 0)),
      sweep: options.rttSweepMs.flatMap((rttMs) => aggregate(measurements.filter((m) => m.rttMs === rttMs))),
      rttSweepMs: options.rttSweepMs,
      runs: options.runs,
      sweepRuns: options.sweepRuns,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      wallSeconds: (performance.now() - startedMs) / 1000,
    };
  } finally {
    await server.stop();
  }
}
