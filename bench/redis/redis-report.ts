/**
 * The page's Redis section and docs/benchmarks-redis.json: the side-effect mode on Redis beside the same mode
 * on DynamoDB. The section sits between two markers, so `npm run bench -- --store redis` replaces it alone and
 * every other run keeps it (bench/page-section.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchRow, formatJson, round, toRow } from '../bench-json.js';
import { lambdaCostTable, PER_INSTANCE_STORE_NOTE, rowsAtReadingRtt } from '../cost/cost-report.js';
import type { MachineDescription } from '../machine.js';
import { describeNetworkModel } from '../network-model.js';
import type { SectionMarkers } from '../page-section.js';
import type { ScenarioResult } from '../results.js';
import { SCENARIO_NAMES, SWEEP_RECORDS_PER_PARTITION } from '../scenarios.js';
import { TARGET_RTT_MS } from '../targets.js';
import { redisModelSources } from './redis-model-sources.js';
import { describeRedisNetworkModel } from './redis-network-model.js';
import type { RedisBenchResults } from './run-redis-bench.js';
import { DYNAMODB_SIDE_EFFECT, REDIS_SIDE_EFFECT, SIDE_EFFECT_SETTINGS } from './side-effect-contenders.js';

export const REDIS_SECTION: SectionMarkers = {
  start: '<!-- redis section: npm run bench -- --store redis rewrites it -->',
  end: '<!-- end of redis section -->',
};
export const REDIS_JSON_FILE = 'benchmarks-redis.json';

/** Where the Redis figures are read: a cache node in the function's AZ (bench/redis/redis-model-sources.ts). */
export const REDIS_READING_RTT_MS = 0.5;

/** The stores in the order the table lists them. */
const STORES = ['redis', 'dynamodb'] as const;

/** A row of docs/benchmarks-redis.json: no Powertools ratio (no Powertools here), and the time per record. */
export type RedisRow = Omit<BenchRow, 'ratioToPowertools'> & {
  /** Wall time of the scenario's invocations over its records, median over the runs. */
  readonly msPerRecord: number;
  readonly byCommandPerRecord: Readonly<Record<string, number>>;
};

export interface RedisJson {
  readonly server: string;
  readonly call: string;
  readonly settings: typeof SIDE_EFFECT_SETTINGS;
  readonly networkModel: { readonly redis: string; readonly dynamodb: string };
  readonly rttSweepMs: { readonly redis: readonly number[]; readonly dynamodb: readonly number[] };
  readonly runs: number;
  readonly scenarios: readonly RedisRow[];
}

/** The median run's ms/record (the inverse of its records/s). */
export function msPerRecord(row: ScenarioResult): number {
  return 1000 / row.recordsPerSecond.median;
}

export function redisRow(row: ScenarioResult): RedisRow {
  const { ratioToPowertools: _, ...rest } = toRow(row);
  return {
    ...rest,
    msPerRecord: round(msPerRecord(row), 3),
    byCommandPerRecord: Object.fromEntries(
      Object.entries(row.byCommandPerRecord).map(([command, perRecord]) => [command, round(perRecord, 4)]),
    ),
  };
}

export function redisJson(results: RedisBenchResults): RedisJson {
  return {
    server: results.server,
    call: 'none: a no-op that records its run (bench/redis/call-ledger.ts)',
    settings: SIDE_EFFECT_SETTINGS,
    networkModel: { redis: describeRedisNetworkModel(), dynamodb: describeNetworkModel() },
    rttSweepMs: { redis: results.redisRttMs, dynamodb: results.dynamoDbRttMs },
    runs: results.runs,
    scenarios: results.rows.map(redisRow),
  };
}

export async function writeRedisJson(directory: string, results: RedisBenchResults): Promise<void> {
  await writeFile(join(directory, REDIS_JSON_FILE), formatJson(redisJson(results)));
}

/**
 * One line per scenario and store: commands (Redis) or requests (DynamoDB) per record, refused per record and
 * by command, the same at every round trip (or their range, where a retry made them differ), then ms/record
 * at each round trip swept ('–' where that store was not run).
 */
export function redisTable(rows: readonly ScenarioResult[]): string {
  const rtts = [...new Set(rows.map((row) => row.rttMs))].sort((a, b) => a - b);
  const lines = [
    `| scenario | store | requests/record | refused/record | by command, per record | ${rtts.map((rtt) => `${rtt} ms`).join(' | ')} |`,
    `|---|---|---:|---:|---|${rtts.map(() => '---:').join('|')}|`,
  ];
  for (const scenario of SCENARIO_NAMES) {
    for (const store of STORES) {
      const mine = rows.filter((row) => row.scenario === scenario && row.store === store);
      const first = mine[0];
      if (first === undefined) continue;
      const cells = rtts.map((rtt) => {
        const there = mine.find((row) => row.rttMs === rtt);
        return there ? msPerRecord(there).toFixed(2) : '–';
      });
      lines.push(
        `| ${scenario} | ${store} | ${across(mine, (row) => row.requestsPerRecord)} | ` +
          `${across(mine, (row) => row.refusedPerRecord)} | ${describeCommands(first.byCommandPerRecord)} | ${cells.join(' | ')} |`,
      );
    }
  }
  return lines.join('\n');
}

/** One figure when every round trip gave the same (to 3 decimals), else their range. */
function across(rows: readonly ScenarioResult[], pick: (row: ScenarioResult) => number): string {
  const values = rows.map((row) => pick(row).toFixed(3));
  const sorted = [...new Set(values)].sort((a, b) => Number(a) - Number(b));
  return sorted.length === 1 ? (sorted[0] as string) : `${sorted[0]}–${sorted[sorted.length - 1]}`;
}

function describeCommands(byCommand: Readonly<Record<string, number>>): string {
  const entries = Object.entries(byCommand);
  if (entries.length === 0) return 'none';
  return entries
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([command, perRecord]) => `${command.replace(/Command$/, '')} ${perRecord.toFixed(3)}`)
    .join(', ');
}

export interface RedisSectionInput {
  readonly results: RedisBenchResults;
  readonly machine: MachineDescription;
  /** The command line that produced the figures, as typed. */
  readonly command: string;
}

export function redisSection({ results, machine, command }: RedisSectionInput): string {
  const runs = `${results.runs} run${results.runs === 1 ? '' : 's'}`;
  return `${REDIS_SECTION.start}
## On Redis

The side-effect mode (an effect that returns \`{ kind: 'call', run }\`: claim the event with a lease, run the call,
complete) on Redis (\`store: redisInbox()\`, entry \`msk-inbox/redis\`, docs/redis.md) beside the same mode on
DynamoDB, on the same byte-identical batches: the sweep's prefixes of the scenarios above (the first
${SWEEP_RECORDS_PER_PARTITION['4p']} records of each partition on the 4-partition scenarios, ${SWEEP_RECORDS_PER_PARTITION['keys-1p']} on keys-1p, ${SWEEP_RECORDS_PER_PARTITION['hot-1p']} on hot-1p), each
sequence on a fresh container and an emptied redis-server or fresh tables.

- **The call does nothing**: it only records that it ran (bench/redis/call-ledger.ts), so it takes no time and a
  record's time is its store's alone. A real call (an HTTP request, an email) adds its own time to a record on
  either store alike.
- **Exactly once, checked**: after every sequence, each distinct event's call must have run once and no event's
  twice, and the balances the runs add up to must be the sequence's; else the bench fails.
- **Settings**: the defaults, but COMPLETED_KEY_CACHE_SIZE=${SIDE_EFFECT_SETTINGS.completedKeyCacheSize} on both, so that a redelivery asks the
  store. With the default cache a duplicate the container has seen costs no request on either store (the
  inbox-claim rows above).

Contenders:
- \`${REDIS_SIDE_EFFECT.name}\`: ${REDIS_SIDE_EFFECT.description}.
- \`${DYNAMODB_SIDE_EFFECT.name}\`: ${DYNAMODB_SIDE_EFFECT.description}.

Produced by \`${command}\` in ${results.wallSeconds.toFixed(0)} s on ${results.server} (Debian's, in memory, nothing
saved) and DynamoDB Local; ${runs} per store, scenario and rttMs (median; the runs' min and max are in
docs/benchmarks-redis.json). ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB; Node.js ${machine.node}. Load average (1 min)
when the measured runs began: ${results.loadAverage.before.toFixed(2)}; when they ended: ${results.loadAverage.after.toFixed(2)}. **These wall-clock figures
were taken on a shared ${machine.cores}-CPU machine** (both servers, the bench and other work on the same cores): where the
modelled round trips dominate, they are what the model says; where they do not, they are this machine's.

### The round-trip model

Redis: \`${describeRedisNetworkModel()}\` (bench/redis/redis-network-model.ts, a wrapper around the client the
store is given). DynamoDB: \`${describeNetworkModel()}\` (bench/network-model.ts): these contenders send only
single-item requests, so rttMs each. Each answer is held until its round trip has passed since it was sent
(bench/measure/hold-until.ts: to within microseconds on an idle machine; on a loaded one a hold of a millisecond
or more ends when the process is next given a core, later), and answers in flight overlap. Redis is swept at
${results.redisRttMs.join(', ')} ms and DynamoDB at ${results.dynamoDbRttMs.join(', ')} ms, as the next section argues.

ms/record is the wall time of a scenario's invocations over its records (the inverse of records/s). On the
4-partition scenarios four partitions wait at once, so it is about a quarter of what a record waits; on
keys-1p and hot-1p a partition's records wait one after another, and it is what one record waits.

${redisTable(results.rows)}

${reading(results.rows)}

### Cost per record

At the round trips the reading takes (Redis ${REDIS_READING_RTT_MS} ms, DynamoDB ${TARGET_RTT_MS} ms; the largest run where \`--rtt\` left
those out). ${PER_INSTANCE_STORE_NOTE} The DynamoDB rows carry their write and read units as DynamoDB bills them.

${lambdaCostTable(
  rowsAtReadingRtt(results.rows.map(toRow), (store) =>
    store === 'redis' ? REDIS_READING_RTT_MS : TARGET_RTT_MS,
  ),
)}

${redisModelSources({ redisMs: REDIS_READING_RTT_MS, dynamoDbMs: TARGET_RTT_MS })}
${REDIS_SECTION.end}`;
}

/** What the rows say, quoted from this run's figures: a rerun rewrites it with its own. */
export function reading(rows: readonly ScenarioResult[]): string {
  const row = (scenario: string, store: string, rttMs: number) =>
    rows.find((r) => r.scenario === scenario && r.store === store && r.rttMs === rttMs);
  const redisNew = row('new-4p', 'redis', REDIS_READING_RTT_MS);
  const dynamoDbNew = row('new-4p', 'dynamodb', TARGET_RTT_MS);
  const redisAgain = row('redelivery-4p', 'redis', REDIS_READING_RTT_MS);
  const dynamoDbAgain = row('redelivery-4p', 'dynamodb', TARGET_RTT_MS);
  const redisHot = row('hot-1p', 'redis', REDIS_READING_RTT_MS);
  const dynamoDbHot = row('hot-1p', 'dynamodb', TARGET_RTT_MS);
  if (!redisNew || !dynamoDbNew || !redisAgain || !dynamoDbAgain || !redisHot || !dynamoDbHot) {
    return `(Redis at rttMs ${REDIS_READING_RTT_MS} or DynamoDB at rttMs ${TARGET_RTT_MS} was not run: no reading.)`;
  }
  const ms = (r: ScenarioResult) => msPerRecord(r).toFixed(2);
  const floor = (r: ScenarioResult) => (r.requestsPerRecord * r.rttMs).toFixed(2);
  const shared = rows
    .filter((r) => r.scenario === 'hot-1p' && r.store === 'redis')
    .map((r) => [r, row('hot-1p', 'dynamodb', r.rttMs)] as const)
    .filter((pair): pair is readonly [ScenarioResult, ScenarioResult] => pair[1] !== undefined);
  const sameRoundTrip =
    shared.length === 0
      ? ''
      : ` Where both ran at the same round trip, the same requests take ${shared
          .map(([redis, dynamoDb]) => `${ms(redis)} and ${ms(dynamoDb)} ms/record at ${redis.rttMs} ms`)
          .join(', ')} (Redis, DynamoDB): the same protocol, so what differs there is the local servers',
the clients' and this machine's own time showing through the hold.`;
  return `**Reading.** Requests per record are the same on both stores: a new record is a claim and a completion
(new-4p: ${redisNew.requestsPerRecord.toFixed(3)} commands on Redis, ${dynamoDbNew.requestsPerRecord.toFixed(3)} requests on DynamoDB), a redelivered one a claim alone, refused because
the completed row is there (redelivery-4p: ${redisAgain.requestsPerRecord.toFixed(3)} and ${dynamoDbAgain.requestsPerRecord.toFixed(3)}, refused ${redisAgain.refusedPerRecord.toFixed(3)} and ${dynamoDbAgain.refusedPerRecord.toFixed(3)}); an in-batch copy
costs neither store anything, as the container answers it from its own batch (dups20-4p). So what differs is
the round trip. On hot-1p a record waits for its two round trips in a row: on Redis at rttMs ${REDIS_READING_RTT_MS} (a node in the
function's AZ) ${ms(redisHot)} ms/record, of which the model's ${floor(redisHot)}; on DynamoDB at rttMs ${TARGET_RTT_MS} ${ms(dynamoDbHot)} ms/record, of which
the model's ${floor(dynamoDbHot)}. Over four partitions at once (new-4p): ${ms(redisNew)} against ${ms(dynamoDbNew)} ms/record.${sameRoundTrip}
On AWS the side-effect mode on Redis saves the difference between the two stores' round trips, twice per new
record, once per redelivered one; a call that itself takes milliseconds shrinks that share.`;
}
