/**
 * Writes docs/benchmarks.json (figures), docs/benchmarks.svg (the plot) and docs/benchmarks.md (the tables,
 * the machine, how to rerun).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchJson, formatJson, toJson } from './bench-json.js';
import { CONTENDERS } from './contenders/index.js';
import { costHeadline, costRttMs, costTable, pricingBasis, renderCostPlot } from './cost/cost-report.js';
import { decodeCostSection } from './decode-cost-report.js';
import type { MachineDescription } from './machine.js';
import { CEILING_CONCURRENCY, type Ceiling } from './measure/ceiling.js';
import { networkSection } from './network-report.js';
import { renderPlot } from './plot.js';
import type { BenchResults, ScenarioResult } from './results.js';
import { SCENARIO_DESCRIPTIONS, SCENARIO_NAMES } from './scenarios.js';
import { checkTargets, verdict } from './targets.js';

export interface ReportInput {
  readonly results: BenchResults;
  readonly machine: MachineDescription;
  readonly settings: string;
  readonly analysis: string;
  /** The Postgres section (bench/postgres/postgres-report.ts), fresh or kept from the page; none when never run. */
  readonly postgresSection?: string | undefined;
  /** The Redis section (bench/redis/redis-report.ts), fresh or kept from the page; none when never run. */
  readonly redisSection?: string | undefined;
  /** The outbox section (bench/outbox/outbox-report.ts), kept from the page; none when never run. */
  readonly outboxSection?: string | undefined;
  /** The tracing section as the page has it (`--tracing` rewrites it), kept as it stands. */
  readonly tracingSection?: string | undefined;
}

/** The cost plot, beside benchmarks.svg. */
export const COST_PLOT_FILE = 'benchmarks-cost.svg';

/** Writes the four files; returns the JSON written, which the targets are checked against. */
export async function writeReport(directory: string, input: ReportInput): Promise<BenchJson> {
  const json = toJson(input.results);
  await writeFile(join(directory, 'benchmarks.json'), formatJson(json));
  await writeFile(
    join(directory, 'benchmarks.svg'),
    renderPlot(
      json.scenarios,
      SCENARIO_NAMES,
      CONTENDERS.map((c) => c.name),
    ),
  );
  await writeFile(
    join(directory, COST_PLOT_FILE),
    renderCostPlot(
      json.scenarios,
      SCENARIO_NAMES,
      CONTENDERS.map((c) => c.name),
    ),
  );
  await writeFile(join(directory, 'benchmarks.md'), toMarkdown(input, json));
  return json;
}

export function resultsTable(scenarios: readonly ScenarioResult[]): string {
  const lines = [
    '| scenario | contender | store | records/s (median) | min–max | requests/record | refused/record | billed WRU/record | client CPU µs/record | × Powertools |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of SCENARIO_NAMES) {
    for (const contender of CONTENDERS) {
      const r = scenarios.find((s) => s.scenario === scenario && s.contender === contender.name);
      if (!r) continue;
      lines.push(
        `| ${scenario} | ${contender.name} | ${r.store} | ${r.recordsPerSecond.median.toFixed(0)} | ` +
          `${r.recordsPerSecond.min.toFixed(0)}–${r.recordsPerSecond.max.toFixed(0)} | ` +
          `${r.requestsPerRecord.toFixed(3)} | ${r.refusedPerRecord.toFixed(3)} | ${r.writeUnitsPerRecord?.toFixed(2) ?? '–'} | ` +
          `${r.cpuMicrosecondsPerRecord.toFixed(0)} | ${r.ratioToPowertools.toFixed(2)} |`,
      );
    }
  }
  return lines.join('\n');
}

const contenderNames = CONTENDERS.map((c) => c.name);

/** The cost table, the plot and how the figures are made. */
function costSection(json: BenchJson): string {
  const rttMs = costRttMs(json.scenarios);
  return `Per record, at rttMs ${rttMs}${rttMs === 0 ? ' (no modelled round trip was run)' : " (the modelled network: most of a function's billed time is waiting on round trips)"}; dollars per million events at
${pricingBasis()}.

${costTable(json.scenarios, SCENARIO_NAMES, contenderNames)}

![USD per million events, DynamoDB and Lambda stacked](${COST_PLOT_FILE})

- **WRU and RRU** are the write and read request units DynamoDB bills, computed from the size of each item a
  request touched (bench/cost: each item's size from a snapshot of the tables before and after the delivery)
  by AWS's rules, with their sources in docs/aws-facts.md#item-sizes-and-capacity-units: 1 WRU per started KB
  of an item written, 2 in a transaction (ConditionCheck included), 1 for a conditional write that failed on
  an absent item; reads 1 RRU per started 4 KB, half eventually consistent, 2 in a transaction. DynamoDB
  Local's own ConsumedCapacity is not used: it answers 4 per table a transaction touches, whatever its items.
- **Billed ms** is Lambda's billed duration: each invocation's wall time here, rounded up to the next
  millisecond, summed over the runs and divided by their records; GB-seconds at the consumer function's
  default memory (lib/function-defaults.ts). It is this machine's CPU and the modelled network's waits: on
  Lambda's slower CPU the client work weighs more, and at a lower round trip every contender waits less.
- **Not priced**: the event source mapping's provisioned pollers and MSK (the same for every contender),
  storage (an inbox row is kept for the dedup TTL), and the free tiers.

`;
}

function ceilingTable(ceiling: Ceiling): string {
  const levels = CEILING_CONCURRENCY.map((n) => `${n} in flight`);
  return [
    `| request | ${levels.join(' | ')} |`,
    `|---|${levels.map(() => '---:').join('|')}|`,
    `| TransactWriteItems (inbox row + 2 updates), per s | ${CEILING_CONCURRENCY.map((n) => (ceiling.transactionsPerSecond[n] ?? 0).toFixed(0)).join(' | ')} |`,
    `| UpdateItem (one item), per s | ${CEILING_CONCURRENCY.map((n) => (ceiling.updatesPerSecond[n] ?? 0).toFixed(0)).join(' | ')} |`,
  ].join('\n');
}

function ablationTable(ablations: BenchResults['ablations']): string {
  const lines = [
    '| scenario | contender | records/s (median) | requests/record | client CPU µs/record | change |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const { scenario, baseline, variant } of ablations) {
    const change = variant.recordsPerSecond.median / baseline.recordsPerSecond.median - 1;
    for (const [row, note] of [
      [baseline, 'baseline'],
      [variant, `${change >= 0 ? '+' : ''}${(change * 100).toFixed(0)}% records/s`],
    ] as const) {
      lines.push(
        `| ${scenario} | ${row.contender} | ${row.recordsPerSecond.median.toFixed(0)} | ` +
          `${row.requestsPerRecord.toFixed(3)} | ${row.cpuMicrosecondsPerRecord.toFixed(0)} | ${note} |`,
      );
    }
  }
  return lines.join('\n');
}

function toMarkdown(
  {
    results,
    machine,
    settings,
    analysis,
    postgresSection,
    redisSection,
    outboxSection,
    tracingSection,
  }: ReportInput,
  json: BenchJson,
): string {
  const targets = checkTargets(json);
  const { bundle, defaultCredentialsBundle, coldInit, powertools, powertoolsWithTelemetry, peakRss } =
    results;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return `# Benchmarks: MSK Inbox against Powertools idempotency

Generated by \`npm run bench\` (bench/main.ts) in ${results.wallSeconds.toFixed(0)} s. Every figure below comes
from that one run, but for the Postgres and Redis sections', each of which says the run that wrote it
(\`--store postgres\` and \`--store redis\` rewrite one alone); rerun it to refresh this page and docs/benchmarks.json.

## What a million events cost

\`\`\`
${costHeadline(json.scenarios, contenderNames).join('\n')}
\`\`\`

${costSection(json)}

## Results

Each contender gets byte-identical MSK batches, each run on a fresh container (handler built anew) and fresh
tables in one DynamoDB Local. This table is rttMs 0: DynamoDB Local as it answers, no network modelled (for the
modelled network, see [Over a modelled network](#over-a-modelled-network) and the plot,
[benchmarks.svg](benchmarks.svg)). Records/s is the median of ${results.runs} runs (hot-1p: of the first
${results.scenarios.find((r) => r.scenario === 'hot-1p')?.recordsPerSecond.samples ?? 0}), from the wall time of the invocations;
requests are every HTTP request the SDK sent (retries included), counted by a middleware in the client;
refused are the requests DynamoDB turned down on a condition (failed conditional write or cancelled
transaction); billed WRU are the write request units DynamoDB bills, computed from the items' sizes (see
[What a million events cost](#what-a-million-events-cost)), not DynamoDB Local's ConsumedCapacity.

${resultsTable(results.scenarios)}

Scenarios:
${SCENARIO_NAMES.map((name) => `- \`${name}\`: ${SCENARIO_DESCRIPTIONS[name]}.`).join('\n')}

Contenders:
${CONTENDERS.map((c) => `- \`${c.name}\`: ${c.description}.`).join('\n')}

Client CPU is this process's CPU time during the invocation divided by its records: the contender's own
work (decoding, hashing, the SDK's serialising and signing), DynamoDB Local aside.

${networkSection(results)}
${postgresSection ? `${postgresSection}\n\n` : ''}${redisSection ? `${redisSection}\n\n` : ''}${outboxSection ? `${outboxSection}\n\n` : ''}${tracingSection ? `${tracingSection}\n\n` : ''}## What DynamoDB Local itself can do

The same requests with no consumer around them, at 1, 4 and 16 in flight: ${results.ceiling.operations} requests
per level at the start of each run, median over the runs.

${ceilingTable(results.ceiling)}

## Each optimisation on and off

Measured in the same runs as the table above (the first ${results.ablations[0]?.baseline.recordsPerSecond.samples ?? 0}), beside the contender it changes:

${ablationTable(results.ablations)}

## Targets

Checked against docs/benchmarks.json's rows; \`npm run bench\` prints the same verdicts at its end. The throughput
targets are read at rttMs 10 (issue 14), where the round trips, not DynamoDB Local, decide.

| target | measured | verdict |
|---|---|---|
${targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met === false ? '**missed**' : verdict(t)} |`).join('\n')}

## The deployed handler

KB and MB on this page are 1,024 and 1,048,576 bytes.

- Bundle of the sample order consumer without tracing, like for like with the Powertools consumers below
  (bench/contenders/untraced-order-consumer.ts; lib/bundling.ts settings, esbuild metafile; the traced
  sample's is in "What tracing costs"): **${kb(bundle.bytes)}** (${bundle.bytes} bytes). Largest parts:
  ${bundle.byPackage
    .slice(0, 8)
    .map((p) => `${p.name} ${kb(p.bytes)}`)
    .join(', ')}.${
    defaultCredentialsBundle
      ? `\n- The same build with the SDK's default credential chain (see Analysis): ${kb(defaultCredentialsBundle.bytes)} (${defaultCredentialsBundle.bytes} bytes).`
      : ''
  }
- Cold init, ${coldInit.importMs.samples} fresh \`node\` processes importing the bundle: median **${coldInit.importMs.median.toFixed(1)} ms**
  (min ${coldInit.importMs.min.toFixed(1)}, max ${coldInit.importMs.max.toFixed(1)}); from process start to a ready handler,
  median ${coldInit.fromProcessStartMs.median.toFixed(1)} ms.
- The Powertools contender deployed the same way (bench/contenders/powertools-handler.ts: its idempotent function
  and client built at module scope, bundled by lib/bundling.ts's options): **${kb(powertools.bundle.bytes)}**, cold init
  median **${powertools.coldInit.importMs.median.toFixed(1)} ms** (min ${powertools.coldInit.importMs.min.toFixed(1)}, max ${powertools.coldInit.importMs.max.toFixed(1)}),
  its processes started in turns with ours so the machine's drift touches all alike.
- The same with Powertools Logger and Metrics built at module scope (bench/contenders/powertools-telemetry-handler.ts:
  the JSON logs and EMF metrics ours writes itself): **${kb(powertoolsWithTelemetry.bundle.bytes)}**, cold init median
  **${powertoolsWithTelemetry.coldInit.importMs.median.toFixed(1)} ms** (min ${powertoolsWithTelemetry.coldInit.importMs.min.toFixed(1)}, max ${powertoolsWithTelemetry.coldInit.importMs.max.toFixed(1)}), in the same turns.
- Peak RSS, one invocation of ${peakRss.records.toLocaleString('en-US')} new records (${peakRss.eventBytes.toLocaleString('en-US')} bytes, ${(peakRss.eventBytes / 1024 / 1024).toFixed(2)} MB of event JSON) in a fresh process against DynamoDB Local:
  **${peakRss.peakRssMb.toFixed(1)} MB** (${peakRss.afterImportRssMb.toFixed(1)} MB after import; the batch took ${(peakRss.milliseconds / 1000).toFixed(1)} s, ${peakRss.failures} records reported).

${initInstructionsSection(results.initInstructions)}

${decodeCostSection(results.decodeCost)}
## Analysis

${analysis}

## Machine

${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; Node.js ${machine.node};
${machine.java}; DynamoDB Local from the npm package amplify-dynamodb-simulator (local/dynamodb-local).
Load average (1 min) when the measured runs began: ${results.loadAverage.before.toFixed(2)}; when they ended:
${results.loadAverage.after.toFixed(2)} (anything above 0 is other work sharing the cores).
DynamoDB Local shares the cores with the contenders and is far slower than DynamoDB, so absolute figures are
this machine's. Requests, refusals and client CPU per record carry over to DynamoDB; throughput ratios at rttMs 0
do not (see Analysis: DynamoDB Local's own bounds), those over the modelled network as far as the model does.

## Rerun

\`\`\`
npm run bench                                # ${settings}
npm run bench -- --runs 1 --rtt 0,10         # a quick look: one run, rttMs 0 and 10 only; still rewrites docs/
npm run bench -- --out .cache/bench --runs 1   # the same, written elsewhere
npm run bench -- --store postgres            # only the Postgres contenders: rewrites their section and benchmarks-postgres.json
npm run bench -- --store redis               # only the side-effect mode on Redis and on DynamoDB: rewrites its section and benchmarks-redis.json
\`\`\`
`;
}

function initInstructionsSection(counts: BenchResults['initInstructions']): string {
  const heading = '### Cold init in instructions';
  if (!counts) {
    return `${heading}\n\nNot measured in this run: valgrind is not installed (\`apt-get install -y valgrind\`).`;
  }
  const millions = (name: keyof NonNullable<typeof counts>) => `${counts[name].millions.toFixed(1)} million`;
  return `${heading}

The same three imports, each once under valgrind (callgrind) in \`node --predictable\`, an empty module's
count subtracted (bench/measure/init-instructions.ts): ours **${millions('ours')}**, Powertools idempotency
alone **${millions('powertools')}**, with Logger and Metrics **${millions('powertoolsWithTelemetry')}**
instructions. The count repeats to within a few thousand where the wall time above spreads by about ±10 ms, so
it says which init does more work when the medians are a millisecond apart. It is this Node build's count on
this CPU: the differences carry over, the figures do not.`;
}
