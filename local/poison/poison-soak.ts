/**
 * The poison promise (poison-promise.ts) over many hostile batches, for `npm run soak -- --poison N`:
 * each batch on fresh tables (DynamoDB) or schemas (Postgres: order-sql-consumer-under-test.ts) of its own,
 * deleted after it.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { MAX_REJECTIONS_WITHOUT_SUCCESS } from '../../lambdas/core/store-failure.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { createAppTable, createInboxTable } from '../dynamodb-local/tables.js';
import { orderConsumerUnderTest } from './order-consumer-under-test.js';
import { measureEvent, poisonBatch, refusedKeyRecords } from './poison-batches.js';
import { type ConsumerUnderTest, checkPoisonPromise } from './poison-promise.js';

/** Batches the promise is checked on: a flood of records DynamoDB refuses is worked off by design. */
export const checkedPoisonBatch = poisonBatch.filter(
  (event) => refusedKeyRecords(event) <= MAX_REJECTIONS_WITHOUT_SUCCESS,
);

/** Where each batch runs: the consumer on storage of the batch's own, and that storage's removal. */
export interface PoisonBatchStore {
  open(index: number): Promise<{ readonly consumer: ConsumerUnderTest; drop(): Promise<void> }>;
}

/** Fresh DynamoDB tables per batch. */
export function dynamoDbPoisonStore(endpoint: string, runId: string): PoisonBatchStore {
  return {
    async open(index) {
      const client = localDynamoDbClient(endpoint);
      const tables = {
        client,
        inboxTableName: `poison-inbox-${runId}-${index}`,
        appTableName: `poison-app-${runId}-${index}`,
      };
      await Promise.all([
        createInboxTable(client, tables.inboxTableName),
        createAppTable(client, tables.appTableName),
      ]);
      return {
        consumer: orderConsumerUnderTest(tables, `poison-${index}`),
        drop: async () => {
          await Promise.all(
            [tables.inboxTableName, tables.appTableName].map((TableName) =>
              client.send(new DeleteTableCommand({ TableName })),
            ),
          );
          client.destroy();
        },
      };
    },
  };
}

export interface PoisonSoakOptions {
  readonly store: PoisonBatchStore;
  readonly batches: number;
  readonly seed: number;
  readonly onBatch?: (done: number) => void;
}

export interface PoisonSoakResult {
  readonly batches: number;
  readonly records: number;
  readonly largestRecordBytes: number;
  readonly deepestNesting: number;
  /** Each with the batch's index, to replay: `--poison <index + 1> --seed <seed>` draws the same batches. */
  readonly violations: readonly string[];
}

export async function runPoisonSoak(options: PoisonSoakOptions): Promise<PoisonSoakResult> {
  const events = fc.sample(checkedPoisonBatch, { seed: options.seed, numRuns: options.batches });
  let records = 0;
  let largestRecordBytes = 0;
  let deepestNesting = 0;
  const violations: string[] = [];
  for (const [index, event] of events.entries()) {
    const figures = measureEvent(event);
    records += Object.values(event.records).reduce((sum, list) => sum + list.length, 0);
    largestRecordBytes = Math.max(largestRecordBytes, figures.largestRecordBytes);
    deepestNesting = Math.max(deepestNesting, figures.deepest);
    const batch = await options.store.open(index);
    try {
      const broken = await checkPoisonPromise(event, batch.consumer);
      violations.push(...broken.map((violation) => `batch ${index + 1}: ${violation}`));
    } finally {
      await batch.drop();
    }
    options.onBatch?.(index + 1);
  }
  return { batches: events.length, records, largestRecordBytes, deepestNesting, violations };
}

export function formatPoisonSoak(result: PoisonSoakResult): string {
  return [
    `poison batches: ${result.batches} (${result.records} records), each delivered twice`,
    `largest record ${result.largestRecordBytes} bytes, deepest nesting ${result.deepestNesting}`,
    ...result.violations.slice(0, 20).map((violation) => `  ${violation}`),
    `poison violations: ${result.violations.length}`,
  ].join('\n');
}
