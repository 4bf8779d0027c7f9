/**
 * The Redis section's part of `npm run bench`: with `--store redis` only it runs, rewriting its section of the
 * page and docs/benchmarks-redis.json; a full run (`--store all`) runs it on the full run's DynamoDB Local and
 * writes it with the rest; `--store dynamodb` and `--store postgres` keep the section as it stands.
 */
import { displayPath } from '../../local/project-paths.js';
import { UserError } from '../../operator/cli/user-error.js';
import { describeMachine } from '../machine.js';
import { DEFAULT_RTT_SWEEP_MS } from '../network-model.js';
import { existingSection, writeSection } from '../page-section.js';
import { REDIS_JSON_FILE, REDIS_SECTION, redisSection, writeRedisJson } from './redis-report.js';
import { REDIS_BENCH_RUNS, REDIS_RTT_SWEEP_MS, runRedisBench } from './run-redis-bench.js';

export interface RedisMainOptions {
  /** The directory of benchmarks.md, made before the run (bench/out-directory.ts). */
  readonly out: string;
  /** `--runs`: the Redis section takes at most REDIS_BENCH_RUNS of them. */
  readonly runs: number;
  /** `--rtt` when given: then both stores run at those round trips; else each at its own sweep. */
  readonly rttSweepMs: readonly number[] | undefined;
  /** The command line, as typed, for the page. */
  readonly command: string;
  readonly progress: (message: string) => void;
  /** The full run's DynamoDB Local; `--store redis` starts its own. */
  readonly dynamoDbEndpoint?: string;
}

/** `--store redis`: only this section and its JSON. */
export async function redisMain(options: RedisMainOptions): Promise<void> {
  const section = await freshRedisSection(options);
  const file = await writeSection(options.out, section, REDIS_SECTION);
  options.progress(`wrote the Redis section of ${displayPath(file)} and ${REDIS_JSON_FILE}`);
}

/**
 * The section a full run writes: measured now when `measure`, else (or when `--rtt` left no round trip above
 * 0 to model) the page's as it stands, if any.
 */
export async function redisSectionFor(
  measure: boolean,
  options: RedisMainOptions,
): Promise<string | undefined> {
  const anyRoundTrip = options.rttSweepMs === undefined || options.rttSweepMs.length > 0;
  return measure && anyRoundTrip ? freshRedisSection(options) : existingSection(options.out, REDIS_SECTION);
}

async function freshRedisSection(options: RedisMainOptions): Promise<string> {
  const redisRttMs = options.rttSweepMs ?? REDIS_RTT_SWEEP_MS;
  const dynamoDbRttMs = options.rttSweepMs ?? DEFAULT_RTT_SWEEP_MS;
  if (redisRttMs.length === 0 && dynamoDbRttMs.length === 0) {
    throw new UserError('the Redis section runs over a modelled network: give --rtt a round trip above 0');
  }
  const results = await runRedisBench({
    runs: Math.min(options.runs, REDIS_BENCH_RUNS),
    redisRttMs,
    dynamoDbRttMs,
    progress: options.progress,
    ...(options.dynamoDbEndpoint === undefined ? {} : { dynamoDbEndpoint: options.dynamoDbEndpoint }),
  });
  await writeRedisJson(options.out, results);
  return redisSection({ results, machine: describeMachine(), command: options.command });
}
