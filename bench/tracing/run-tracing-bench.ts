/**
 * What tracing costs the consumer, in CPU per record (docs/tracing.md#what-it-costs): each variant of
 * tracing-child.ts in a process of its own, the variants in turns so that the machine's drift falls on
 * all of them alike, the median of the rounds compared.
 */
import { join } from 'node:path';
import { run } from '../measure/child-process.js';
import { type Spread, spreadOf } from '../measure/stats.js';
import { TRACING_VARIANTS, type TracingSample, type TracingVariant } from './tracing-variants.js';

const CHILD = join(import.meta.dirname, 'tracing-child.ts');
/** Measured batches of 100 records per process: about two seconds of CPU each. */
export const TRACING_BATCHES = 100;
const CHILD_TIMEOUT_MS = 120_000;

export interface TracingRow {
  readonly variant: TracingVariant;
  readonly cpuMicrosPerRecord: Spread;
  /** Spans per record (the sdk variant's). */
  readonly spansPerRecord: number;
}

export interface TracingBenchResults {
  readonly rounds: number;
  readonly recordsPerRound: number;
  readonly rows: readonly TracingRow[];
}

export async function runTracingBench(options: {
  readonly rounds: number;
  readonly progress: (message: string) => void;
}): Promise<TracingBenchResults> {
  const samples = new Map<TracingVariant, TracingSample[]>(TRACING_VARIANTS.map((variant) => [variant, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const variant of TRACING_VARIANTS) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, variant], {
        env: { ...process.env, TRACING_BENCH_BATCHES: String(TRACING_BATCHES) },
        timeout: CHILD_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
      const sample = JSON.parse(stdout.trim().split('\n').pop() ?? '') as TracingSample;
      samples.get(variant)?.push(sample);
    }
    options.progress(`tracing cost: round ${round} of ${options.rounds}`);
  }
  const rows = TRACING_VARIANTS.map((variant) => {
    const runs = samples.get(variant) ?? [];
    const records = runs[0]?.records ?? 1;
    return {
      variant,
      cpuMicrosPerRecord: spreadOf(runs.map((sample) => sample.cpuMicrosPerRecord)),
      spansPerRecord: (runs[0]?.spans ?? 0) / records,
    };
  });
  return { rounds: options.rounds, recordsPerRound: TRACING_BATCHES * 100, rows };
}
