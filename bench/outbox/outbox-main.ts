/** `npm run bench -- --outbox`: only the outbox comparison, rewriting only its section of the page. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { displayPath } from '../../local/project-paths.js';
import { describeMachine } from '../machine.js';
import { outboxSection, withOutboxSection } from './outbox-report.js';
import { runOutboxBench } from './run-outbox-bench.js';

export interface OutboxMainOptions {
  readonly out: string;
  readonly runs: number;
  readonly rttSweepMs: readonly number[];
  readonly command: string;
  readonly progress: (message: string) => void;
}

export async function outboxMain(options: OutboxMainOptions): Promise<void> {
  const results = await runOutboxBench(options);
  const file = join(options.out, 'benchmarks.md');
  const page = await readFile(file, 'utf8').catch(() => undefined);
  const section = outboxSection({ results, machine: describeMachine(), command: options.command });
  await writeFile(file, withOutboxSection(page, section));
  options.progress(`wrote the outbox section of ${displayPath(file)}`);
  console.log(`\n${section}`);
}
