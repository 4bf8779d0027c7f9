/**
 * What the function wrote: EMF metric lines are summed by metric name (what CloudWatch would show), and
 * every line is kept in a log file for reading after the run.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

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
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
    const directives = (
      entry._aws as { CloudWatchMetrics?: { Metrics?: { Name?: unknown }[] }[] } | undefined
    )?.CloudWatchMetrics;
    for (const directive of directives ?? []) {
      for (const { Name } of directive.Metrics ?? []) {
        if (typeof Name !== 'string') continue;
        const value = entry[Name];
        const values = Array.isArray(value) ? value : [value];
        const sum = values.reduce((total: number, v) => total + (typeof v === 'number' ? v : 0), 0);
        this.metrics.set(Name, (this.metrics.get(Name) ?? 0) + sum);
      }
    }
  }

  metric(name: string): number {
    return this.metrics.get(name) ?? 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#log.end(resolve));
  }
}
