/**
 * What tracing costs the consumer, in CPU per record (docs/tracing.md#what-it-costs): each variant of
 * tracing-child.ts in a process of its own, the variants in turns so that the machine's drift falls on
 * all of them alike, the median of the rounds compared.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ORDER_CONSUMER_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { measureBundle } from '../measure/bundle.js';
import { orderConsumerVariables, run } from '../measure/child-process.js';
import { type ColdInitMeasurement, measureColdInit } from '../measure/cold-init.js';
import { type InitInstructions, initInstructionsWhereAvailable } from '../measure/init-instructions.js';
import { type Spread, spreadOf } from '../measure/stats.js';
import { TRACING_VARIANTS, type TracingSample, type TracingVariant } from './tracing-variants.js';

const CHILD = join(import.meta.dirname, 'tracing-child.ts');
/** Measured batches of 100 records per process: about two seconds of CPU each. */
const TRACING_BATCHES = 100;
const CHILD_TIMEOUT_MS = 120_000;

export interface TracingRow {
  readonly variant: TracingVariant;
  readonly cpuMicrosPerRecord: Spread;
  /** Spans per record (the sdk variant's). */
  readonly spansPerRecord: number;
}

/** The sample order consumer's bundle, untraced (as the bench weighs it against Powertools) and as deployed. */
export type BundleSubject = 'untraced' | 'traced';

export interface TracingBenchResults {
  readonly rounds: number;
  readonly recordsPerRound: number;
  readonly rows: readonly TracingRow[];
  readonly bundleBytes: Readonly<Record<BundleSubject, number>>;
  readonly coldInit: Readonly<Record<BundleSubject, ColdInitMeasurement>>;
  /** Where valgrind is installed. */
  readonly initInstructions: Readonly<Record<BundleSubject, InitInstructions>> | undefined;
}

/** Fresh processes each bundle is imported in, in turns. */
const COLD_STARTS = 15;

/** What the bundles read at import; nothing is called, so no table is reached. */
const IMPORT_ENV = orderConsumerVariables({ inbox: 'inbox', app: 'app' });

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
  return {
    rounds: options.rounds,
    // As the child counted them: the batch's size is the child's to say.
    recordsPerRound: samples.get('off')?.[0]?.records ?? 0,
    rows,
    ...(await weighBundles(options.progress)),
  };
}

/** Bytes, cold init and its instructions of the sample's bundle without tracing and with it. */
async function weighBundles(progress: (message: string) => void) {
  const directory = await mkdtemp(join(tmpdir(), 'msk-inbox-tracing-bundles-'));
  try {
    const untraced = await measureBundle(join(directory, 'untraced'));
    const traced = await measureBundle(join(directory, 'traced'), 'deployed', ORDER_CONSUMER_ENTRY);
    const subjects = {
      untraced: { bundleFile: untraced.file, env: IMPORT_ENV },
      traced: { bundleFile: traced.file, env: IMPORT_ENV },
    };
    progress(`tracing cost: cold init, ${COLD_STARTS} fresh processes each, untraced and traced in turns`);
    const coldInit = await measureColdInit(subjects, COLD_STARTS);
    const initInstructions = await initInstructionsWhereAvailable(subjects, directory, progress);
    return { bundleBytes: { untraced: untraced.bytes, traced: traced.bytes }, coldInit, initInstructions };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
