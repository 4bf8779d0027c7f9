/**
 * What the function wrote: EMF metric lines (local/dashboard/emf.ts) are summed by metric name (what
 * CloudWatch would show), and every line is kept in a log file for reading after the run (and the dashboard).
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { parseEmfObject } from '../dashboard/emf.js';

export class FunctionOutput {
  readonly metrics = new Map<string, number>();
  errorLines = 0;
  readonly #log: WriteStream;

  constructor(logPath: string) {
    mkdirSync(dirname(logPath), { recursive: true });
    this.#log = createWriteStream(logPath, { flags: 'w' });
  }

  /** Takes one line of the function's stdout or stderr. */
  accept(line: string): void {
    this.#log.write(`${line}\n`);
    if (!line.startsWith('{')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const entry = parsed as Record<string, unknown>;
    if (entry.level === 'ERROR' || entry.level === 'CRITICAL') this.errorLines++;
    const emf = parseEmfObject(entry);
    if (emf.kind !== 'metrics') return;
    for (const { name, values } of emf.metrics) {
      this.metrics.set(name, (this.metrics.get(name) ?? 0) + values.reduce((sum, v) => sum + v, 0));
    }
  }

  metric(name: string): number {
    return this.metrics.get(name) ?? 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#log.end(resolve));
  }
}
