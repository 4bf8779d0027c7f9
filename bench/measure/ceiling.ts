/**
 * What DynamoDB Local itself can do with no consumer logic around it: the very TransactWriteItems the
 * inbox sends (through DynamoDbInboxStore) and the single-item UpdateItem the side-effect contenders send,
 * each at 1, 4 and 16 in flight. Whatever the engine does, its throughput here is bounded by these.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../../lambdas/core/clock.js';
import { DynamoDbInboxStore } from '../../lambdas/core/dynamodb-inbox-store.js';
import { localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { orderPlacedWrites } from '../../sample/order-consumer/order-placed.js';
import { sendWritesOneByOne } from '../contenders/order-writes.js';
import { spreadOf } from './stats.js';
import { createBenchTables, deleteBenchTables } from './tables.js';

export const CEILING_CONCURRENCY = [1, 4, 16] as const;

export interface Ceiling {
  readonly operations: number;
  /** TransactWriteItems per second (inbox row + 2 updates), by requests in flight. */
  readonly transactionsPerSecond: Readonly<Record<number, number>>;
  /** Single-item UpdateItem requests per second, by requests in flight. */
  readonly updatesPerSecond: Readonly<Record<number, number>>;
}

export async function measureCeiling(endpoint: string, operations: number): Promise<Ceiling> {
  const client = localDynamoDbClient(endpoint);
  const tables = await createBenchTables(client, 'ceiling');
  try {
    const documentClient = DynamoDBDocumentClient.from(client);
    const store = new DynamoDbInboxStore({
      client: documentClient,
      tableName: tables.inbox,
      consumer: 'ceiling',
      ttlSeconds: 3_600,
      clock: systemClock,
    });
    let sequence = 0;
    // Each in-flight slot has its own account, as partitions do: no transaction conflicts.
    const order = (slot: number) => {
      sequence += 1;
      return {
        event_id: `c-${sequence}`,
        type: 'OrderPlaced' as const,
        order_id: `c-${sequence}`,
        account_id: `c-${slot}`,
        amount: 1,
      };
    };
    const transactionsPerSecond: Record<number, number> = {};
    const updatesPerSecond: Record<number, number> = {};
    for (const inFlight of CEILING_CONCURRENCY) {
      transactionsPerSecond[inFlight] = await rate(operations, inFlight, async (slot) => {
        const placed = order(slot);
        const result = await store.commit(
          { dedupKey: placed.event_id, payloadHash: 'h', source: 'ceiling' },
          orderPlacedWrites(tables.app, placed),
        );
        if (result.kind !== 'committed') throw new Error(`ceiling transaction ${result.kind}`);
      });
      // Two updates per operation: the rate is counted in requests.
      updatesPerSecond[inFlight] =
        2 *
        (await rate(operations / 2, inFlight, (slot) =>
          sendWritesOneByOne(documentClient, orderPlacedWrites(tables.app, order(slot))),
        ));
    }
    return { operations, transactionsPerSecond, updatesPerSecond };
  } finally {
    await deleteBenchTables(client, tables);
    client.destroy();
  }
}

/** Per level, the median over runs. */
export function medianCeiling(samples: readonly Ceiling[]): Ceiling {
  const median = (pick: (sample: Ceiling) => Readonly<Record<number, number>>) =>
    Object.fromEntries(
      CEILING_CONCURRENCY.map((level) => [level, spreadOf(samples.map((s) => pick(s)[level] ?? 0)).median]),
    );
  return {
    operations: samples[0]?.operations ?? 0,
    transactionsPerSecond: median((s) => s.transactionsPerSecond),
    updatesPerSecond: median((s) => s.updatesPerSecond),
  };
}

export function describeCeiling(ceiling: Ceiling): string {
  const at = (rates: Readonly<Record<number, number>>) =>
    CEILING_CONCURRENCY.map((level) => `${(rates[level] ?? 0).toFixed(0)}@${level}`).join(' ');
  return `transactions/s ${at(ceiling.transactionsPerSecond)}, updates/s ${at(ceiling.updatesPerSecond)}`;
}

async function rate(operations: number, inFlight: number, operation: (slot: number) => Promise<void>) {
  let started = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, slot) => {
      while (started < operations) {
        started += 1;
        await operation(slot);
      }
    }),
  );
  return (operations / (performance.now() - begin)) * 1000;
}
