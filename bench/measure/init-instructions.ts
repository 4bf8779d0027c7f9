/**
 * Cold init counted in instructions: a fresh `node --predictable` per bundle under valgrind (callgrind), the
 * import's count being the process's minus that of a process importing an empty module. Wall time of one
 * import on a shared VM spreads by about ±10 ms around 80; the count repeats to within a few thousand
 * instructions of some 150 million, so bundles a millisecond apart still compare, and a change to the
 * engine's init shows as a number rather than as noise. `--predictable` runs V8 on one thread with its
 * heuristics fixed, which is what makes the count repeat; the count is of this machine's Node build, and
 * what carries over is the comparison, not the figure (docs/benchmarks.md#cold-init-in-instructions).
 *
 * Needs valgrind (`apt-get install -y valgrind`); without it the bench says so in one line and goes on.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshNodeEnvironment, handlerImportSource, run } from './child-process.js';
import type { ColdInitSubject } from './cold-init.js';

export interface InitInstructions {
  /** Instructions of the import alone (the empty module's subtracted), in millions. */
  readonly millions: number;
}

/** valgrind's total, in its summary line `==pid== I   refs:      814,324,033`. */
const TOTAL_LINE = /I\s+refs:\s+([\d,]+)/;

/** Whether valgrind is on the PATH. */
async function valgrindAvailable(): Promise<boolean> {
  try {
    await run('valgrind', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** Instructions each bundle's import takes, beyond an empty module's; one subject at a time. */
async function measureInitInstructions<Name extends string>(
  subjects: Readonly<Record<Name, ColdInitSubject>>,
  workDirectory: string,
): Promise<Record<Name, InitInstructions>> {
  const emptyModule = join(workDirectory, 'empty-handler.mjs');
  await writeFile(emptyModule, 'export const handler = () => undefined;\n');
  const names = Object.keys(subjects) as Name[];
  const firstEnv = names.length > 0 ? subjects[names[0] as Name].env : {};
  const baseline = await countedImport(emptyModule, firstEnv);
  const counts = {} as Record<Name, InitInstructions>;
  for (const name of names) {
    const { bundleFile, env } = subjects[name];
    counts[name] = { millions: ((await countedImport(bundleFile, env)) - baseline) / 1e6 };
  }
  return counts;
}

async function countedImport(file: string, env: Readonly<Record<string, string>>): Promise<number> {
  const { stderr } = await run(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      '--predictable',
      '--input-type=module',
      '-e',
      handlerImportSource(file),
    ],
    { env: freshNodeEnvironment(env), timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return instructionsIn(stderr);
}

/** The total from valgrind's summary on stderr; an error quoting its end when there is none. */
export function instructionsIn(stderr: string): number {
  const total = TOTAL_LINE.exec(stderr)?.[1];
  if (total === undefined) throw new Error(`valgrind printed no instruction count:\n${stderr.slice(-2_000)}`);
  return Number(total.replaceAll(',', ''));
}

/** The counts where valgrind is installed; otherwise one line on how to get it, and undefined. */
export async function initInstructionsWhereAvailable<Name extends string>(
  subjects: Readonly<Record<Name, ColdInitSubject>>,
  workDirectory: string,
  progress: (line: string) => void,
): Promise<Record<Name, InitInstructions> | undefined> {
  if (!(await valgrindAvailable())) {
    progress('cold init in instructions: skipped, valgrind is not installed (apt-get install -y valgrind)');
    return undefined;
  }
  progress('cold init in instructions: each bundle once under valgrind (about 15 s each)');
  return measureInitInstructions(subjects, workDirectory);
}
