/**
 * The side-effect mode on Redis beside the same mode on DynamoDB (bench/redis/side-effect-contenders.ts):
 * one redis-server and, unless the caller has one running, one DynamoDB Local for the run; a warm-up; then
 * `runs` rounds of the sweep's sequences (bench/scenarios.ts: new records, their redelivery, in-batch
 * duplicates, one partition) at every round trip each store is swept at, the two contenders rotated. No
 * rttMs 0: there the figures are the local servers' (a JVM beside an in-memory server), which nothing on
 * AWS resembles. After every sequence the ledger checks that each event's call ran once.
 */
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startDynamoDbLocal } from '../../local/dynamodb-local/server.js';
import { startRedisServer } from '../../local/redis/redis-server.js';
import { type DeliveryMeasurement, measureDeliveries, runSequence } from '../measure/throughput.js';
import { aggregate, type ScenarioResult } from '../results.js';
import { buildSequences, rotate, type Sequence, warmUpSequence } from '../scenarios.js';
import { CallLedger } from './call-ledger.js';
import { RedisCommandCounter } from './redis-command-counter.js';
import {
  dynamoDbSideEffectContender,
  REDIS_SIDE_EFFECT,
  redisSideEffectContainer,
} from './side-effect-contenders.js';

/**
 * Redis's round trips swept: a cache in the function's zone (0.25, 0.5), in another zone (1), and
 * writes that wait for a Multi-AZ log, as on MemoryDB or ElastiCache with synchronous durability (2, 5).
 * docs/benchmarks.md#on-redis cites what each rests on (bench/redis/redis-model-sources.ts).
 */
export const REDIS_RTT_SWEEP_MS: readonly number[] = [0.25, 0.5, 1, 2, 5];

/** Rounds of every sequence at every round trip: enough for a median on a shared machine, in a few minutes. */
export const REDIS_BENCH_RUNS = 3;

/** Warm-up sequences per contender before measuring: DynamoDB Local's JIT needs a few thousand requests. */
const WARM_UP_ROUNDS = 3;

export interface RedisBenchOptions {
  readonly runs: number;
  /** Round trips (above 0) at which the Redis contender runs. */
  readonly redisRttMs: readonly number[];
  /** Round trips (above 0) at which the DynamoDB contender runs (bench/network-model.ts). */
  readonly dynamoDbRttMs: readonly number[];
  /** A DynamoDB Local already running (the full bench's); else this run starts its own. */
  readonly dynamoDbEndpoint?: string;
  readonly progress: (message: string) => void;
}

export interface RedisBenchResults {
  /** Which server answered: `redis-server 7.0.15`. */
  readonly server: string;
  /** Both contenders at every round trip they ran at. */
  readonly rows: readonly ScenarioResult[];
  readonly redisRttMs: readonly number[];
  readonly dynamoDbRttMs: readonly number[];
  readonly runs: number;
  /** 1-minute load average when the measurements started and ended: other work on the machine. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly wallSeconds: number;
}

export async function runRedisBench(options: RedisBenchOptions): Promise<RedisBenchResults> {
  const { progress } = options;
  const startedMs = performance.now();
  progress('starting redis-server for the Redis side-effect contender');
  const redis = await startRedisServer();
  // The caller's DynamoDB Local is the caller's to stop.
  const dynamoDb =
    options.dynamoDbEndpoint === undefined
      ? await startDynamoDbLocal().catch(stopping(redis))
      : { endpoint: options.dynamoDbEndpoint, stop: async () => undefined };
  try {
    const { endpoint } = dynamoDb;
    const server = await redisVersion(redis.url);
    progress(`Redis: ${server}`);
    const onDynamoDb = (sequence: Sequence, rttMs: number, runId: string) =>
      measureOnDynamoDb(endpoint, sequence, rttMs, runId);
    const onRedis = (sequence: Sequence, rttMs: number) => measureOnRedis(redis.url, sequence, rttMs);

    progress(`warming up: both contenders ${WARM_UP_ROUNDS} times (not measured)`);
    for (let round = 0; round < WARM_UP_ROUNDS; round += 1) {
      await onDynamoDb(warmUpSequence(), 0, `redis-warm${round}`);
      await onRedis(warmUpSequence(), 0);
    }

    const loadBefore = loadavg()[0] ?? 0;
    const measurements: DeliveryMeasurement[] = [];
    const sequences = buildSequences('sweep');
    const rtts = [...new Set([...options.redisRttMs, ...options.dynamoDbRttMs])].sort((a, b) => a - b);
    for (let run = 0; run < options.runs; run += 1) {
      for (const rttMs of rtts) {
        for (const [index, sequence] of sequences.entries()) {
          const stores = [
            ...(options.dynamoDbRttMs.includes(rttMs)
              ? [
                  {
                    store: 'dynamodb',
                    measure: () => onDynamoDb(sequence, rttMs, `redis-r${run}m${rttMs}s${index}`),
                  },
                ]
              : []),
            ...(options.redisRttMs.includes(rttMs)
              ? [{ store: 'redis', measure: () => onRedis(sequence, rttMs) }]
              : []),
          ];
          for (const { store, measure } of rotate(stores, run + index)) {
            const measured = await measure();
            measurements.push(...measured);
            progress(
              `run ${run + 1}/${options.runs} rttMs ${String(rttMs).padEnd(4)} ${store.padEnd(8)} ${measured
                .map((m) => `${m.scenario} ${(m.milliseconds / m.records).toFixed(2)} ms/record`)
                .join(', ')}`,
            );
          }
        }
      }
    }
    return {
      server,
      rows: rtts.flatMap((rttMs) => aggregate(measurements.filter((m) => m.rttMs === rttMs))),
      redisRttMs: options.redisRttMs,
      dynamoDbRttMs: options.dynamoDbRttMs,
      runs: options.runs,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      wallSeconds: (performance.now() - startedMs) / 1000,
    };
  } finally {
    await dynamoDb.stop();
    await redis.stop();
  }
}

/** One sequence on a fresh DynamoDB container and fresh tables, the ledger checked after it. */
async function measureOnDynamoDb(
  endpoint: string,
  sequence: Sequence,
  rttMs: number,
  runId: string,
): Promise<DeliveryMeasurement[]> {
  const ledger = new CallLedger();
  const contender = dynamoDbSideEffectContender(ledger);
  // The ledger is the check here: the transactional contenders' balances are not written.
  const measured = await runSequence(contender, sequence, { endpoint, runId, verify: false, rttMs });
  ledger.check(contender.name, sequence);
  return measured;
}

/** One sequence on a fresh Redis container and an empty server, the ledger checked after it. */
async function measureOnRedis(
  url: string,
  sequence: Sequence,
  rttMs: number,
): Promise<DeliveryMeasurement[]> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    // Connected before the first delivery is timed, as DynamoDB's client is by creating the tables.
    await client.ping();
    const ledger = new CallLedger();
    const counter = new RedisCommandCounter();
    const measured = await measureDeliveries({
      contender: REDIS_SIDE_EFFECT.name,
      store: 'redis',
      container: redisSideEffectContainer(client, { rttMs, counter }, ledger),
      counter,
      sequence,
      rttMs,
    });
    ledger.check(REDIS_SIDE_EFFECT.name, sequence);
    return measured;
  } finally {
    // The next sequence starts on an empty server, as the DynamoDB contender starts on fresh tables.
    await client.flushdb();
    await client.quit();
  }
}

async function redisVersion(url: string): Promise<string> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await client.info('server');
    return `redis-server ${/redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown'}`;
  } finally {
    await client.quit();
  }
}

/** Stops the server started before a later start failed, then fails as that start did. */
function stopping(server: { stop(): Promise<void> }) {
  return async (error: unknown): Promise<never> => {
    await server.stop();
    throw error;
  };
}
