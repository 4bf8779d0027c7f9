/**
 * What a million events cost each contender, from docs/benchmarks.json's rows: the headline `npm run bench`
 * prints and the page opens with, the cost table, and docs/benchmarks-cost.svg. Every contender in the rows
 * gets its line: a new one is priced without a change here.
 */
import { CONSUMER_ARCHITECTURE, DEFAULT_CONSUMER_MEMORY_MB } from '../../lib/function-defaults.js';
import type { BenchRow } from '../bench-json.js';
import { styleOf, xmlText } from '../plot.js';
import { TARGET_RTT_MS } from '../targets.js';
import { PRICES } from './prices.js';

/** The scenario the headline quotes: new events, the work every consumer does. */
const HEADLINE_SCENARIO = 'new-4p';

/**
 * Where cost is read: TARGET_RTT_MS when the run modelled it, since a function's billed time is mostly
 * waiting on round trips (at rttMs 0 it waits on DynamoDB Local instead); rttMs 0 otherwise.
 */
export function costRttMs(rows: readonly BenchRow[]): number {
  return rows.some((r) => r.rttMs === TARGET_RTT_MS) ? TARGET_RTT_MS : 0;
}

/** What the dollars assume, in one sentence. */
export function pricingBasis(): string {
  return (
    `${PRICES.region} on-demand prices checked ${PRICES.checked} (bench/cost/prices.ts): DynamoDB ` +
    `$${PRICES.dynamoDb.writeRequestUnitsPerMillion} per million write request units, ` +
    `$${PRICES.dynamoDb.readRequestUnitsPerMillion} per million read request units; Lambda ` +
    `$${PRICES.lambda.requestsPerMillion} per million requests and $${PRICES.lambda.gbSecond[CONSUMER_ARCHITECTURE]} ` +
    `per GB-second (${CONSUMER_ARCHITECTURE}) at the consumer function's default ${DEFAULT_CONSUMER_MEMORY_MB} MB`
  );
}

/** A few lines for stdout and the top of the page: each contender's dollars per million events. */
export function costHeadline(rows: readonly BenchRow[], contenders: readonly string[]): string[] {
  const rttMs = costRttMs(rows);
  const at = contenders.flatMap((name) => {
    const row = rows.find(
      (r) => r.scenario === HEADLINE_SCENARIO && r.contender === name && r.rttMs === rttMs,
    );
    return row ? [row] : [];
  });
  if (at.length === 0) return [`(${HEADLINE_SCENARIO} at rttMs ${rttMs} was not run: no cost to show.)`];
  const width = Math.max(...at.map((r) => r.contender.length));
  return [
    `USD per million events, ${HEADLINE_SCENARIO} at rttMs ${rttMs} (${PRICES.region} on-demand, prices of ${PRICES.checked}):`,
    ...at.map((r) => {
      const d = r.dollarsPerMillion;
      return (
        `  ${r.contender.padEnd(width)}  $${d.total.toFixed(2).padStart(6)}  ` +
        `(DynamoDB $${(d.dynamoDbWrites + d.dynamoDbReads).toFixed(2)}: ${units(r.writeUnitsPerRecord)} WRU + ` +
        `${units(r.readUnitsPerRecord)} RRU per event; Lambda $${(d.lambdaRequests + d.lambdaDuration).toFixed(2)}: ` +
        `${r.billedMsPerRecord.toFixed(2)} billed ms per event)`
      );
    }),
  ];
}

/** Every scenario and contender at the cost rttMs, Powertools beside each mode. */
export function costTable(
  rows: readonly BenchRow[],
  scenarios: readonly string[],
  contenders: readonly string[],
): string {
  const rttMs = costRttMs(rows);
  const lines = [
    '| scenario | contender | WRU/record | RRU/record | requests/record | invocations/1,000 records | billed ms/record | GB-s/record | DynamoDB $/M events | Lambda $/M events | total $/M events | × Powertools |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const powertools = rows.find(
      (r) => r.scenario === scenario && r.contender === 'powertools' && r.rttMs === rttMs,
    );
    for (const contender of contenders) {
      const r = rows.find(
        (row) => row.scenario === scenario && row.contender === contender && row.rttMs === rttMs,
      );
      if (!r) continue;
      const d = r.dollarsPerMillion;
      lines.push(
        `| ${scenario} | ${contender} | ${units(r.writeUnitsPerRecord)} | ${units(r.readUnitsPerRecord)} | ` +
          `${r.requestsPerRecord.toFixed(3)} | ${(r.invocationsPerRecord * 1000).toFixed(1)} | ${r.billedMsPerRecord.toFixed(2)} | ` +
          `${r.gbSecondsPerRecord.toExponential(2)} | ${(d.dynamoDbWrites + d.dynamoDbReads).toFixed(2)} | ` +
          `${(d.lambdaRequests + d.lambdaDuration).toFixed(2)} | **${d.total.toFixed(2)}** | ` +
          `${powertools && powertools.dollarsPerMillion.total > 0 ? (d.total / powertools.dollarsPerMillion.total).toFixed(2) : '–'} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Each store's rows at the round trip its section reads, or, where the run left that out (`--rtt`), at the
 * largest it ran.
 */
export function rowsAtReadingRtt(
  rows: readonly BenchRow[],
  readingRttMs: (store: string) => number,
): BenchRow[] {
  const atFor = (store: string) => {
    const ran = rows.filter((r) => r.store === store).map((r) => r.rttMs);
    return ran.includes(readingRttMs(store)) ? readingRttMs(store) : Math.max(...ran);
  };
  return rows.filter((r) => r.rttMs === atFor(r.store));
}

/**
 * The rows given, each at its own rttMs: for a store priced per instance-hour (Postgres, Redis) only the
 * Lambda side is priced, and the section says so.
 */
export function lambdaCostTable(rows: readonly BenchRow[]): string {
  const lines = [
    `${pricingBasis()}.`,
    '',
    '| scenario | contender | store | rttMs | WRU/record | RRU/record | invocations/1,000 records | billed ms/record | GB-s/record | DynamoDB $/M events | Lambda $/M events |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const d = row.dollarsPerMillion;
    const dynamoDb =
      row.writeUnitsPerRecord === undefined ? '–' : (d.dynamoDbWrites + d.dynamoDbReads).toFixed(2);
    lines.push(
      `| ${row.scenario} | ${row.contender} | ${row.store} | ${row.rttMs} | ${units(row.writeUnitsPerRecord)} | ` +
        `${units(row.readUnitsPerRecord)} | ${(row.invocationsPerRecord * 1000).toFixed(1)} | ${row.billedMsPerRecord.toFixed(2)} | ` +
        `${row.gbSecondsPerRecord.toExponential(2)} | ${dynamoDb} | ${(d.lambdaRequests + d.lambdaDuration).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/** Why the store of a Postgres or Redis contender has no dollars per event. */
export const PER_INSTANCE_STORE_NOTE =
  'The database or cache itself is priced per instance-hour (and RDS Proxy per vCPU-hour of the database), ' +
  'not per request: its share of a million events depends on how busy the instance is kept, so only the ' +
  'Lambda side of each record is priced here.';

const BAR = {
  height: 12,
  gap: 3,
  groupGap: 16,
  left: 150,
  right: 90,
  top: 46,
  bottom: 40,
  width: 900,
} as const;

/** docs/benchmarks-cost.svg: per scenario, a bar per contender, DynamoDB and Lambda stacked, in USD per million events. */
export function renderCostPlot(
  rows: readonly BenchRow[],
  scenarios: readonly string[],
  contenders: readonly string[],
): string {
  const rttMs = costRttMs(rows);
  const groups = scenarios
    .map((scenario) => ({
      scenario,
      bars: contenders.flatMap((contender) => {
        const row = rows.find(
          (r) => r.scenario === scenario && r.contender === contender && r.rttMs === rttMs,
        );
        return row ? [row] : [];
      }),
    }))
    .filter((group) => group.bars.length > 0);
  const max = Math.max(0.01, ...groups.flatMap((g) => g.bars.map((b) => b.dollarsPerMillion.total)));
  const plotWidth = BAR.width - BAR.left - BAR.right;
  const sx = (dollars: number) => (dollars / max) * plotWidth;
  const out: string[] = [];
  let y = BAR.top;
  for (const { scenario, bars } of groups) {
    out.push(`<text x="8" y="${y + BAR.height}" font-weight="bold">${xmlText(scenario)}</text>`);
    for (const row of bars) {
      const { color, dash } = styleOf(row.contender, contenders);
      // A dashed line on the other plot: an outlined bar here.
      const paint = dash
        ? `fill="#ffffff" stroke="${color}" stroke-dasharray="${dash}"`
        : `fill="${color}" stroke="${color}"`;
      const d = row.dollarsPerMillion;
      const dynamoDb = sx(d.dynamoDbWrites + d.dynamoDbReads);
      const lambda = sx(d.lambdaRequests + d.lambdaDuration);
      out.push(
        `<text x="${BAR.left - 6}" y="${y + BAR.height - 2}" text-anchor="end">${xmlText(row.contender)}</text>`,
        `<rect x="${BAR.left}" y="${y}" width="${dynamoDb.toFixed(1)}" height="${BAR.height}" ${paint}><title>${xmlText(
          `${row.contender}, ${scenario}: DynamoDB $${(d.dynamoDbWrites + d.dynamoDbReads).toFixed(2)} per million events`,
        )}</title></rect>`,
        `<rect x="${(BAR.left + dynamoDb).toFixed(1)}" y="${y}" width="${lambda.toFixed(1)}" height="${BAR.height}" fill="${color}" fill-opacity="0.3" stroke="${color}"${dash ? ` stroke-dasharray="${dash}"` : ''}><title>${xmlText(
          `${row.contender}, ${scenario}: Lambda $${(d.lambdaRequests + d.lambdaDuration).toFixed(2)} per million events`,
        )}</title></rect>`,
        `<text x="${(BAR.left + dynamoDb + lambda + 5).toFixed(1)}" y="${y + BAR.height - 2}">$${d.total.toFixed(2)}</text>`,
      );
      y += BAR.height + BAR.gap;
    }
    y += BAR.groupGap;
  }
  const height = y + BAR.bottom;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${BAR.width}" height="${height}" viewBox="0 0 ${BAR.width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-labelledby="title">
<title id="title">USD per million events of each contender and scenario at rttMs ${rttMs}: DynamoDB (solid) and Lambda (light)</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="${BAR.width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">USD per million events at rttMs ${rttMs}, ${xmlText(PRICES.region)} on-demand (npm run bench)</text>
<text x="${BAR.width / 2}" y="38" text-anchor="middle" fill="#555">solid: DynamoDB write and read units as billed; light: Lambda requests and GB-seconds (${DEFAULT_CONSUMER_MEMORY_MB} MB, ${CONSUMER_ARCHITECTURE}); prices of ${PRICES.checked}</text>
${out.join('\n')}
</svg>
`;
}

function units(value: number | undefined): string {
  return value === undefined ? '–' : value.toFixed(2);
}
