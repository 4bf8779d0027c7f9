/** `npm run bench -- --tracing`: only what tracing costs, rewriting only its section of the page. */
import { displayPath } from '../../local/project-paths.js';
import { describeMachine } from '../machine.js';
import { runTracingBench } from './run-tracing-bench.js';
import { tracingSection, writeTracingSection } from './tracing-report.js';

export async function tracingMain(options: {
  readonly out: string;
  readonly runs: number;
  readonly command: string;
  readonly progress: (message: string) => void;
}): Promise<void> {
  const results = await runTracingBench({ rounds: options.runs, progress: options.progress });
  const section = tracingSection({ results, machine: describeMachine(), command: options.command });
  const file = await writeTracingSection(options.out, section);
  options.progress(`wrote the tracing section of ${displayPath(file)}`);
  console.log(`\n${section}`);
}
