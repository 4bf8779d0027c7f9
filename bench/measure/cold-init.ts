/**
 * Cold init: fresh processes importing a bundle. What is timed is the import itself (module evaluation:
 * reading config, building the SDK client and the handler), which is what Lambda's Init
 * Duration adds on top of its own runtime start; the time from process start is reported beside it.
 *
 * Several bundles (ours and the Powertools consumer's) are measured in turns, one process after another, so
 * a drift of the machine's load touches them alike and their medians compare within one run.
 */

import { handlerImportSource, runInFreshNode } from './child-process.js';
import { type Spread, spreadOf } from './stats.js';

/**
 * Fresh processes per bundle. One import's wall time on a shared 2-core VM spreads by about ±10 ms around a
 * median near 80 ms, so a median of 20 moved by 3 ms between runs, as far as two bundles differ; 30 each,
 * in turns, narrows that for a few seconds more. It does not remove it (a full bench put ours 4.8 ms behind
 * Powertools idempotency alone where 60 quiet rounds put them 0.1 ms apart): where bundles are that close,
 * the instruction count (init-instructions.ts) says which does more work.
 */
export const COLD_STARTS = 30;

export interface ColdInitMeasurement {
  readonly importMs: Spread;
  /** From the process's time origin to the handler being ready: Node's own start included. */
  readonly fromProcessStartMs: Spread;
}

/** One bundle to cold-start, with the variables its function has. */
export interface ColdInitSubject {
  readonly bundleFile: string;
  readonly env: Readonly<Record<string, string>>;
}

export async function measureColdInit<Name extends string>(
  subjects: Readonly<Record<Name, ColdInitSubject>>,
  processesEach: number,
): Promise<Record<Name, ColdInitMeasurement>> {
  const names = Object.keys(subjects) as Name[];
  const samples = Object.fromEntries(
    names.map((name) => [name, { imports: [] as number[], fromStart: [] as number[] }]),
  ) as Record<Name, { imports: number[]; fromStart: number[] }>;
  // One process at a time: concurrent ones would share 2 cores and time each other.
  for (let round = 0; round < processesEach; round += 1) {
    // The order turns each round: neither bundle always follows the other (and its page cache).
    const turn = names.map((_, index) => names[(index + round) % names.length] as Name);
    for (const name of turn) {
      const { bundleFile, env } = subjects[name];
      const figures = await runInFreshNode<{ importMs: number; fromProcessStartMs: number }>(
        importScript(bundleFile),
        env,
        30_000,
      );
      samples[name].imports.push(figures.importMs);
      samples[name].fromStart.push(figures.fromProcessStartMs);
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      { importMs: spreadOf(samples[name].imports), fromProcessStartMs: spreadOf(samples[name].fromStart) },
    ]),
  ) as Record<Name, ColdInitMeasurement>;
}

function importScript(bundleFile: string): string {
  return `
    const started = performance.now();
    ${handlerImportSource(bundleFile)}
    const ready = performance.now();
    console.log(JSON.stringify({ importMs: ready - started, fromProcessStartMs: ready }));
  `;
}
