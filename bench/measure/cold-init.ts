/**
 * Cold init: fresh processes importing the bundle. What is timed is the import itself (module evaluation:
 * reading config, building the SDK client, Powertools and the middy chain), which is what Lambda's Init
 * Duration adds on top of its own runtime start; the time from process start is reported beside it.
 */

import { moduleUrl, runInFreshNode } from './child-process.js';
import { type Spread, spreadOf } from './stats.js';

export interface ColdInitMeasurement {
  readonly importMs: Spread;
  /** From the process's time origin to the handler being ready: Node's own start included. */
  readonly fromProcessStartMs: Spread;
}

export async function measureColdInit(
  bundleFile: string,
  env: Readonly<Record<string, string>>,
  processes: number,
): Promise<ColdInitMeasurement> {
  const script = `
    const started = performance.now();
    const module = await import(${JSON.stringify(moduleUrl(bundleFile))});
    const ready = performance.now();
    if (typeof module.handler !== 'function') throw new Error('no handler export');
    console.log(JSON.stringify({ importMs: ready - started, fromProcessStartMs: ready }));
  `;
  const imports: number[] = [];
  const fromStart: number[] = [];
  // One after another: concurrent processes would share 2 cores and time each other.
  for (let index = 0; index < processes; index += 1) {
    const figures = await runInFreshNode<{ importMs: number; fromProcessStartMs: number }>(
      script,
      env,
      30_000,
    );
    imports.push(figures.importMs);
    fromStart.push(figures.fromProcessStartMs);
  }
  return { importMs: spreadOf(imports), fromProcessStartMs: spreadOf(fromStart) };
}
