/**
 * The poison promise (poison-promise.ts) over many hostile batches, for `npm run soak -- --poison N`:
 * each batch on fresh tables of its own, deleted after it.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { MAX_REJECTIONS_WITHOUT_SUCCESS } from '../../lambdas/core/store-failure.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { createAppTable, createInboxTable } from '../dynamodb-local/tables.js';
import { orderConsumerUnderTest } from './order-consumer-under-test.js';
import { measureEvent, poisonBatch, refusedKeyRecords } from './poison-batches.js';
import { checkPoisonPromise } from './poison-promise.js';

/** Batches the promise is checked on: a flood of records DynamoDB refuses is worked off by design. */
export const checkedPoisonBatch = poisonBatch.filter(
  (event) => refusedKeyRecords(event) <= MAX_REJECTIONS_WITHOUT_SUCCESS,
);

export interface PoisonSoakOptions {
  readonly endpoint: string;
  readonly batches: number;
  readonly seed: number;
  readonly runId: string;
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
  const client = localDynamoDbClient(options.endpoint);
  const events = fc.sample(checkedPoisonBatch, { seed: options.seed, numRuns: options.batches });
  let records = 0;
  let largestRecordBytes = 0;
  let deepestNesting = 0;
  const violations: string[] = [];
  try {
    for (const [index, event] of events.entries()) {
      const figures = measureEvent(event);
      records += Object.values(event.records).reduce((sum, list) => sum + list.length, 0);
      largestRecordBytes = Math.max(largestRecordBytes, figures.largestRecordBytes);
      deepestNesting = Math.max(deepestNesting, figures.deepest);
      const tables = {
        client,
        inboxTableName: `poison-inbox-${options.runId}-${index}`,
        appTableName: `poison-app-${options.runId}-${index}`,
      };
      await Promise.all([
        createInboxTable(client, tables.inboxTableName),
        createAppTable(client, tables.appTableName),
      ]);
      try {
        const broken = await checkPoisonPromise(event, orderConsumerUnderTest(tables, `poison-${index}`));
        violations.push(...broken.map((violation) => `batch ${index + 1}: ${violation}`));
      } finally {
        await Promise.all(
          [tables.inboxTableName, tables.appTableName].map((TableName) =>
            client.send(new DeleteTableCommand({ TableName })),
          ),
        );
      }
      options.onBatch?.(index + 1);
    }
  } finally {
    client.destroy();
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
