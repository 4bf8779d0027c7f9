/**
 * The page's Postgres section and docs/benchmarks-postgres.json. The section sits between two markers so
 * `npm run bench -- --store postgres` can replace it alone, leaving the DynamoDB figures of the last full run
 * as they are, and `--store dynamodb` can keep it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HANDLER_SETTINGS } from '../../lambdas/core/settings.js';
import { type BenchRow, formatJson, round, toRow } from '../bench-json.js';
import { POSTGRES_CONTENDERS } from '../contenders/index.js';
import { lambdaCostTable, PER_INSTANCE_STORE_NOTE, rowsAtReadingRtt } from '../cost/cost-report.js';
import type { MachineDescription } from '../machine.js';
import { existingSection, type SectionMarkers, withSection } from '../page-section.js';
import type { ScenarioResult } from '../results.js';
import { SCENARIO_NAMES, SWEEP_RECORDS_PER_PARTITION } from '../scenarios.js';
import { postgresModelSources } from './postgres-model-sources.js';
import { describePostgresNetworkModel } from './postgres-network-model.js';
import type { PostgresBenchResults } from './run-postgres-bench.js';

export const POSTGRES_SECTION_START =
  '<!-- postgres section: npm run bench -- --store postgres rewrites it -->';
export const POSTGRES_SECTION_END = '<!-- end of postgres section -->';
const POSTGRES_SECTION: SectionMarkers = { start: POSTGRES_SECTION_START, end: POSTGRES_SECTION_END };
export const POSTGRES_JSON_FILE = 'benchmarks-postgres.json';

/** The base round trip the Postgres figures are read at: Lambda, RDS Proxy and the Aurora writer in one AZ. */
export const POSTGRES_READING_RTT_MS = 5;

export interface PostgresJson {
  readonly server: string;
  readonly networkModel: string;
  readonly rttSweepMs: readonly number[];
  readonly scenarios: readonly BenchRow[];
}

export async function writePostgresJson(directory: string, results: PostgresBenchResults): Promise<void> {
  const json: PostgresJson = {
    server: results.server,
    networkModel: describePostgresNetworkModel(),
    rttSweepMs: results.rttSweepMs,
    scenarios: [...results.scenarios, ...results.sweep].map(toRow),
  };
  await writeFile(join(directory, POSTGRES_JSON_FILE), formatJson(json));
}

/** The section of the page as it stands, markers included, or undefined when it has none. */
export function existingPostgresSection(directory: string): Promise<string | undefined> {
  return existingSection(directory, POSTGRES_SECTION);
}

/** The page with its Postgres section replaced, or added at its end; a page of its own when there is none. */
export function withPostgresSection(page: string | undefined, section: string): string {
  return withSection(page, section, POSTGRES_SECTION);
}

export interface PostgresSectionInput {
  readonly results: PostgresBenchResults;
  readonly machine: MachineDescription;
  /** The command line that produced the figures, as typed. */
  readonly command: string;
}

export function postgresSection({ results, machine, command }: PostgresSectionInput): string {
  const read = POSTGRES_READING_RTT_MS;
  return `${POSTGRES_SECTION_START}
## On Postgres

The inbox on Postgres (\`store: postgresInbox()\`, entry \`msk-inbox/postgres\`) with the sample's SQL effect
(sample/order-consumer/order-placed-sql.ts: an upsert of the account, one of the order), on the same byte-identical
batches, each sequence on a fresh container and a fresh schema. Produced by \`${command}\` in
${results.wallSeconds.toFixed(0)} s on ${results.server}. ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB;
Node.js ${machine.node}. Load average (1 min) when the measured runs began: ${results.loadAverage.before.toFixed(2)};
when they ended: ${results.loadAverage.after.toFixed(2)}. Other work shared the cores during these runs, so
records/s are noisy: the conclusions below rest on statements and transactions per record, which do not depend on the
machine.

Contenders:
${POSTGRES_CONTENDERS.map((c) => `- \`${c.name}\`: ${c.description}.`).join('\n')}

Statements are every query the \`pg\` driver was given, each one round trip, counted by a wrapper around the
pool's clients (bench/measure/statement-counter.ts); transactions are the BEGINs among them; failed are the
statements the server answered with an error. At rttMs 0 (${results.runs} runs, hot-1p fewer; median):

${fullSizeTable(results.scenarios)}

### The round-trip model

\`${describePostgresNetworkModel()}\` (ms), held with a timer by a wrapper around each client's \`query\`
(bench/postgres/postgres-network-model.ts), the analogue of the DynamoDB middleware. A new record then waits for
BEGIN, its inbox INSERT, two upserts and COMMIT: 5 round trips alone in its transaction; grouped, 4 of its own
(its SAVEPOINT, INSERT and two upserts) plus BEGIN and COMMIT shared by the transaction's records. The sweep runs the same
prefixes as DynamoDB's (${SWEEP_RECORDS_PER_PARTITION['4p']} records per partition on the 4-partition scenarios); ${results.sweepRuns} run${results.sweepRuns === 1 ? '' : 's'} per rttMs.
The figures are read at rttMs ${read}: Lambda to RDS Proxy to the Aurora writer in one AZ, as the next section argues.

${sweepTable(results, read)}

${reading(results, read)}

### Cost per record

${costOfPostgres(results, read)}

${postgresModelSources(read)}
${POSTGRES_SECTION_END}`;
}

function fullSizeTable(rows: readonly ScenarioResult[]): string {
  const lines = [
    '| scenario | contender | store | records/s (median) | min–max | statements/record | transactions/record | failed/record | client CPU µs/record |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of SCENARIO_NAMES) {
    for (const { name } of POSTGRES_CONTENDERS) {
      const r = rows.find((row) => row.scenario === scenario && row.contender === name);
      if (!r) continue;
      lines.push(
        `| ${scenario} | ${name} | ${r.store} | ${r.recordsPerSecond.median.toFixed(0)} | ` +
          `${r.recordsPerSecond.min.toFixed(0)}–${r.recordsPerSecond.max.toFixed(0)} | ` +
          `${r.requestsPerRecord.toFixed(3)} | ${r.transactionsPerRecord.toFixed(3)} | ${r.refusedPerRecord.toFixed(3)} | ` +
          `${r.cpuMicrosecondsPerRecord.toFixed(0)} |`,
      );
    }
  }
  return lines.join('\n');
}

function sweepTable(results: PostgresBenchResults, readAt: number): string {
  const rtts = [0, ...results.rttSweepMs];
  const all = [...results.scenarios, ...results.sweep];
  const at = rtts.includes(readAt) ? readAt : (rtts[rtts.length - 1] ?? 0);
  const find = (scenario: string, contender: string, rttMs: number) =>
    all.find((r) => r.scenario === scenario && r.contender === contender && r.rttMs === rttMs);
  const lines = [
    `Records/s (median) at each round trip (0 ms: the full-size run above), with statements and transactions per record at rttMs ${at}:`,
    '',
    `| scenario | contender | store | ${rtts.map((rtt) => `${rtt} ms`).join(' | ')} | statements/record | transactions/record |`,
    `|---|---|---|${rtts.map(() => '---:').join('|')}|---:|---:|`,
  ];
  for (const scenario of SCENARIO_NAMES) {
    for (const { name } of POSTGRES_CONTENDERS) {
      const cells = rtts.map((rtt) => find(scenario, name, rtt)?.recordsPerSecond.median.toFixed(0) ?? '–');
      if (cells.every((cell) => cell === '–')) continue;
      const there = find(scenario, name, at);
      lines.push(
        `| ${scenario} | ${name} | postgres | ${cells.join(' | ')} | ${there ? round(there.requestsPerRecord, 3).toFixed(3) : '–'} | ` +
          `${there ? round(there.transactionsPerRecord, 3).toFixed(3) : '–'} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The Lambda side of each record at the rttMs the section reads (or the largest run), the store aside. */
function costOfPostgres(results: PostgresBenchResults, rttMs: number): string {
  const rows = rowsAtReadingRtt([...results.scenarios, ...results.sweep].map(toRow), () => rttMs);
  return `${PER_INSTANCE_STORE_NOTE}\n\n${lambdaCostTable(rows)}`;
}

/** What the counts say, quoted from this run's rows: a rerun rewrites it with its own. */
function reading(results: PostgresBenchResults, rttMs: number): string {
  const all = [...results.scenarios, ...results.sweep];
  const row = (scenario: string, contender: string, rtt: number) =>
    all.find((r) => r.scenario === scenario && r.contender === contender && r.rttMs === rtt);
  const grouped = row('hot-1p', 'inbox-pg', rttMs);
  const ungrouped = row('hot-1p', 'inbox-pg-ungrouped', rttMs);
  const perKey = row('hot-1p', 'inbox-pg-per-key', rttMs);
  if (!grouped || !ungrouped || !perKey) return `(rttMs ${rttMs} was not run: no reading.)`;
  const rps = (r: ScenarioResult) => r.recordsPerSecond.median.toFixed(0);
  const bound = (r: ScenarioResult) => (1000 / (r.requestsPerRecord * rttMs)).toFixed(0);
  return `**Reading (hot-1p, rttMs ${rttMs}).** A new record alone in its transaction costs ${ungrouped.requestsPerRecord.toFixed(3)} statements
(BEGIN, the inbox INSERT, two upserts, COMMIT); grouped, ${grouped.requestsPerRecord.toFixed(3)} in ${grouped.transactionsPerRecord.toFixed(3)} transactions:
a SAVEPOINT replaces BEGIN and COMMIT is shared, so grouping saves one round trip in five. On DynamoDB a group is
one request; on Postgres every record's statements still wait in a row on the partition's one connection. The
model bounds one partition at 1000 / (statements × rttMs): ${bound(grouped)} records/s grouped, ${bound(ungrouped)} ungrouped; measured
${rps(grouped)} and ${rps(ungrouped)}. What pays on Postgres is records in flight: ORDERING=key runs the partition's keys on
several connections at once (the pool the store sizes, one per partition processed at once: PARTITION_CONCURRENCY,
default ${HANDLER_SETTINGS.partitionConcurrency.default}), ${rps(perKey)} records/s at ${perKey.requestsPerRecord.toFixed(3)} statements per record.`;
}
