/**
 * Peak memory of one invocation with the largest batch Lambda delivers (10,000 records, about 6 MB of
 * event): a fresh process imports the bundle, parses the event as the runtime does, runs the handler
 * against DynamoDB Local and reports its maximum resident set size.
 */
import { writeFile } from 'node:fs/promises';
import { CHILD_CONTEXT_SOURCE, moduleUrl, runInFreshNode } from './child-process.js';

export interface PeakRssMeasurement {
  readonly records: number;
  readonly eventBytes: number;
  /** Max RSS over the process's life, in MiB. */
  readonly peakRssMb: number;
  /** RSS once the bundle is imported, before the event is read. */
  readonly afterImportRssMb: number;
  readonly failures: number;
  readonly milliseconds: number;
}

export async function measurePeakRss(options: {
  readonly bundleFile: string;
  readonly eventFile: string;
  readonly event: unknown;
  readonly records: number;
  readonly env: Readonly<Record<string, string>>;
}): Promise<PeakRssMeasurement> {
  const json = JSON.stringify(options.event);
  await writeFile(options.eventFile, json);
  const script = `
    import { readFileSync } from 'node:fs';
    const { handler } = await import(${JSON.stringify(moduleUrl(options.bundleFile))});
    const afterImport = process.memoryUsage.rss();
    const event = JSON.parse(readFileSync(${JSON.stringify(options.eventFile)}, 'utf8'));
    const started = performance.now();
    const response = await handler(event, ${CHILD_CONTEXT_SOURCE});
    const milliseconds = performance.now() - started;
    console.log(JSON.stringify({
      peakRssKb: process.resourceUsage().maxRSS,
      afterImportRss: afterImport,
      failures: response.batchItemFailures.length,
      milliseconds,
    }));
  `;
  const figures = await runInFreshNode<{
    peakRssKb: number;
    afterImportRss: number;
    failures: number;
    milliseconds: number;
  }>(script, options.env, 300_000);
  return {
    records: options.records,
    eventBytes: Buffer.byteLength(json),
    peakRssMb: figures.peakRssKb / 1024,
    afterImportRssMb: figures.afterImportRss / 1024 / 1024,
    failures: figures.failures,
    milliseconds: figures.milliseconds,
  };
}
