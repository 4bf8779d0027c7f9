/**
 * The "What tracing costs" section of docs/benchmarks.md: written by `npm run bench -- --tracing` between
 * its markers, kept as it stands by the other runs (bench/report.ts).
 */
import type { MachineDescription } from '../machine.js';
import { existingSection, type SectionMarkers, writeSection } from '../page-section.js';
import type { TracingBenchResults, TracingRow } from './run-tracing-bench.js';

const TRACING_SECTION: SectionMarkers = {
  start: '<!-- tracing section: npm run bench -- --tracing rewrites it -->',
  end: '<!-- end of tracing section -->',
};

export function existingTracingSection(directory: string): Promise<string | undefined> {
  return existingSection(directory, TRACING_SECTION);
}

export function writeTracingSection(directory: string, section: string): Promise<string> {
  return writeSection(directory, section, TRACING_SECTION);
}

const MEANING: Readonly<Record<TracingRow['variant'], string>> = {
  off: 'no `tracing` option: the engine with NO_TRACE',
  api: '`tracing: openTelemetryTracing()`, no SDK registered (the option on, no ADOT layer)',
  sdk: 'the same with an SDK registered as the ADOT layer does: context manager, batch processor, spans encoded as OTLP/JSON and flushed after each invocation (not sent)',
};

export function tracingSection(input: {
  readonly results: TracingBenchResults;
  readonly machine: MachineDescription;
  readonly command: string;
}): string {
  const { results, machine } = input;
  const off = results.rows.find((row) => row.variant === 'off')?.cpuMicrosPerRecord.median ?? 0;
  const lines = results.rows.map((row) => {
    const { median, min, max } = row.cpuMicrosPerRecord;
    const added =
      row.variant === 'off' ? '' : `${signed(median - off)} (${signed((100 * (median - off)) / off, '%')})`;
    return `| ${row.variant} | ${MEANING[row.variant]} | ${median.toFixed(1)} | ${min.toFixed(1)} to ${max.toFixed(1)} | ${added} | ${row.spansPerRecord.toFixed(2)} |`;
  });
  return `${TRACING_SECTION.start}
## What tracing costs

CPU per record of the sample order consumer built by \`createInboxConsumer\`, its DynamoDB client answered at
once inside the process (no network, no DynamoDB Local): the engine, the schema, the SDK's serialization
and, with tracing, the spans. Each variant runs in a process of its own (\`bench/tracing/tracing-child.ts\`):
10 warm-up batches, then ${results.recordsPerRound.toLocaleString('en-US')} new orders in batches of 100 over 4
partitions, each record with a producer's \`traceparent\`; the variants in turns, ${results.rounds} rounds, the
median compared. ${machine.cpu}, ${machine.cores} cores; Node.js ${machine.node}. Command: \`${input.command}\`.

| variant | what runs | CPU µs/record (median) | min to max | added | spans/record |
|---|---|---:|---:|---:|---:|
${lines.join('\n')}

What the option weighs at cold start: the sample order consumer's bundle without \`tracing\` (what the bench
compares with Powertools) and as the stack deploys it, with \`openTelemetryTracing()\` (\`@opentelemetry/api\`
and \`msk-inbox/opentelemetry\`), each imported in ${results.coldInit.untraced.importMs.samples} fresh processes in turns:

| bundle | bytes | cold init median (min to max) | instructions |
|---|---:|---:|---:|
${bundleLine('without tracing', results.bundleBytes.untraced, results.coldInit.untraced.importMs, results.initInstructions?.untraced.millions)}
${bundleLine('with tracing (the sample as deployed)', results.bundleBytes.traced, results.coldInit.traced.importMs, results.initInstructions?.traced.millions)}

- CPU time, not wall time: what Lambda bills at a fixed memory size is the wall time of an invocation,
  and the extra CPU lengthens it only as much as the invocation is CPU-bound (with DynamoDB's round trips
  of 10 ms and more, much less).
- With the option on but nothing recording (no SDK, or an unsampled invocation), \`openTelemetryTracing()\`
  hands the engine \`NO_TRACE\` for the invocation: the records cost as with the option off.
- The exporter's network send is not measured; the ADOT layer sends from the same process.
${TRACING_SECTION.end}`;
}

function bundleLine(
  name: string,
  bytes: number,
  importMs: { readonly median: number; readonly min: number; readonly max: number },
  instructions: number | undefined,
): string {
  const millions = instructions === undefined ? 'valgrind not installed' : `${instructions.toFixed(1)} M`;
  return `| ${name} | ${(bytes / 1024).toFixed(1)} KB (${bytes}) | ${importMs.median.toFixed(1)} ms (${importMs.min.toFixed(1)} to ${importMs.max.toFixed(1)}) | ${millions} |`;
}

function signed(value: number, unit = ''): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)}${unit}`;
}
