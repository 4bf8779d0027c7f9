/**
 * The network the bench puts between the Redis store and the local redis-server, the analogue of
 * bench/network-model.ts (DynamoDB) and bench/postgres/postgres-network-model.ts: every command the store
 * sends (an EVAL of one of its scripts, or EXISTS) is one round trip, and its answer (an error too) is held
 * until `rttMs` has passed since it was sent. Each hold is its own wait (bench/measure/hold-until.ts), so
 * commands in flight overlap as on a network: partitions share one connection, but each answer waits alone.
 *
 * One figure for every command: Lambda to the cache's primary and back (docs/benchmarks.md#on-redis cites the
 * figures it rests on). The local server's own time is hidden under the hold, as DynamoDB Local's is.
 */
import type { RedisScripting } from '../../lambdas/redis/redis-inbox-store.js';
import { holdUntil } from '../measure/hold-until.js';
import { type RedisCommandCounter, scriptName } from './redis-command-counter.js';

/** What the page and the progress output say the model is; rttMs is the swept base. */
export function describeRedisNetworkModel(): string {
  return 'round trip = rttMs for every command (an EVAL of the claim, complete, release or quarantine script; EXISTS)';
}

export interface CommandModel {
  /** Each command's round trip in ms; 0 leaves the answers as the server gives them. */
  readonly rttMs: number;
  /** Told of every command sent and of its answer, at any rttMs. */
  readonly counter: RedisCommandCounter;
}

/**
 * The same client, each command counted and, above rttMs 0, its answer held until `hold` resolves for the
 * moment the round trip ends (a test passes a hold it ends by hand).
 */
export function modelledRedis(
  client: RedisScripting,
  { rttMs, counter }: CommandModel,
  hold: (deadlineMs: number) => Promise<void> = holdUntil,
): RedisScripting {
  const roundTrip = async <T>(command: string, send: () => Promise<T>): Promise<T> => {
    counter.sent(command);
    const sentMs = performance.now();
    try {
      const answer = await send();
      counter.answered(command, answer);
      return answer;
    } finally {
      if (rttMs > 0) await hold(sentMs + rttMs);
    }
  };
  return {
    eval: (script, numberOfKeys, ...args) =>
      roundTrip(scriptName(script), () => client.eval(script, numberOfKeys, ...args)),
    exists: (...keys) => roundTrip('EXISTS', () => client.exists(...keys)),
  };
}
