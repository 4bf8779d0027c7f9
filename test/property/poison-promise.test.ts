/**
 * No record can block its partition, as a property against DynamoDB Local: fast-check draws hostile
 * batches (local/poison/poison-batches.ts: sizes up to the ESM's 6 MB, arbitrary bytes, nesting, header
 * shapes and coordinates) and each is delivered twice to the deployed handler chain. The promise
 * (local/poison/poison-promise.ts): no throw for a well-formed envelope, no record named, every record
 * applied, skipped, a duplicate or quarantined with its row, nothing applied again. `npm run soak --
 * --poison N` runs the same property longer.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderConsumerUnderTest } from '../../local/poison/order-consumer-under-test.js';
import { measureEvent } from '../../local/poison/poison-batches.js';
import { checkPoisonPromise } from '../../local/poison/poison-promise.js';
import { checkedPoisonBatch } from '../../local/poison/poison-soak.js';
import { createTestTables } from '../support/dynamodb.js';

/** Bounded for npm test; the soak runs more. */
const CASES = 60;

describe('hostile batches against DynamoDB Local, each delivered twice', () => {
  it(`keep the promise: no throw, nothing named, every record final, nothing applied twice (${CASES} batches)`, async () => {
    let largest = 0;
    let deepest = 0;
    await fc.assert(
      fc.asyncProperty(checkedPoisonBatch, async (event) => {
        const figures = measureEvent(event);
        largest = Math.max(largest, figures.largestRecordBytes);
        deepest = Math.max(deepest, figures.deepest);
        // Tables of its own per batch: the state compared is this batch's alone.
        const tables = await createTestTables();
        const consumer = orderConsumerUnderTest(tables, `poison-${randomUUID().slice(0, 8)}`);
        expect(await checkPoisonPromise(event, consumer)).toEqual([]);
      }),
      { numRuns: CASES },
    );
    console.log(
      `poison promise: ${CASES} batches, largest record ${largest} bytes, deepest nesting ${deepest}`,
    );
  }, 300_000);
});
