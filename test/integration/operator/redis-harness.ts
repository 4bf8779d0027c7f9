/**
 * The operator commands against Debian's redis-server (test/support/redis.ts: one per test file), on
 * entries a real consumer on the Redis store quarantined (fixtures/redis-orders-handler.ts), and what
 * the tests read of the keys themselves (lambdas/redis/redis-keys.ts).
 */
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import {
  redisAuditIndexKey,
  redisParkedEntryKey,
  redisQuarantineEntryKey,
  redisQuarantineIndexKey,
} from '../../../lambdas/redis/redis-keys.js';
import { runOperator } from '../../../operator/operator-main.js';
import { CONSUMER, type Run } from './operator-harness.js';
import { collectingIo } from './postgres-harness.js';

export const REDIS_HANDLER_FILE = join(import.meta.dirname, 'fixtures', 'redis-orders-handler.ts');

/** Runs one command line against the server; `answer` is what a person types at a confirmation. */
export async function redisOperator(url: string, argv: readonly string[], answer?: string): Promise<Run> {
  const { io, run } = collectingIo(answer);
  return run(await runOperator([...argv, '--redis', url, '--consumer', CONSUMER], io));
}

/**
 * The variables of a consumer on this server, set before the fixture consumer is first imported; its
 * orders above 100 are refused.
 */
export function useRedisConsumerEnvironment(url: string): void {
  Object.assign(process.env, { CONSUMER_NAME: CONSUMER, REDIS_URL: url, ORDERS_MAX_AMOUNT: '100' });
}

/** What the keys of one quarantined record hold: its entry, its parked copy, and which index lists it. */
export function redisEntries(client: Redis) {
  const json = async (key: string) => {
    const text = await client.get(key);
    return text === null ? undefined : (JSON.parse(text) as Record<string, unknown>);
  };
  return {
    entry: (id: string) => json(redisQuarantineEntryKey(CONSUMER, id)),
    parked: (id: string) => json(redisParkedEntryKey(CONSUMER, id)),
    /** The index of the record's entry (or its parked copy): `quarantine` (listed), `audit`, or neither. */
    async indexOf(
      id: string,
      which: 'entry' | 'parked' = 'entry',
    ): Promise<'quarantine' | 'audit' | undefined> {
      const key =
        which === 'entry' ? redisQuarantineEntryKey(CONSUMER, id) : redisParkedEntryKey(CONSUMER, id);
      if ((await client.zscore(redisQuarantineIndexKey(CONSUMER), key)) !== null) return 'quarantine';
      if ((await client.zscore(redisAuditIndexKey(CONSUMER), key)) !== null) return 'audit';
      return undefined;
    },
  };
}
