import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryDestination } from '../../../local/esm/on-failure-destination.js';
import type { DynamoDBStreamEvent } from '../../../local/streams/stream-event.js';
import type { StreamOnFailureRecord } from '../../../local/streams/stream-on-failure.js';
import {
  createStreamTable,
  DRAIN_MS,
  itemValue,
  type StreamTable,
  sequenceOf,
  startMapping,
  stopMappings,
  valuesOf,
} from './stream-harness.js';

let table: StreamTable;
beforeEach(async () => {
  table = await createStreamTable();
});
afterEach(stopMappings);

async function putValues(...values: string[]): Promise<void> {
  for (const value of values) await table.put(value, value);
}

const failuresAt = (event: DynamoDBStreamEvent, ...values: string[]) => ({
  batchItemFailures: event.Records.filter((record) => values.includes(itemValue(record))).map((record) => ({
    itemIdentifier: sequenceOf(record),
  })),
});

describe('with ReportBatchItemFailures, the DynamoDB stream mapping', () => {
  it('checkpoints before the lowest reported record and retries from it, not before', async () => {
    await putValues('r0', 'r1', 'r2', 'r3', 'r4');
    let calls = 0;
    const { mapping, events } = await startMapping(
      table,
      async (event) => (++calls === 1 ? failuresAt(event, 'r3', 'r2') : { batchItemFailures: [] }),
      { settings: { reportBatchItemFailures: true } },
    );

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4'],
      ['r2', 'r3', 'r4'],
    ]);
    expect(mapping.stats).toMatchObject({ partialFailures: 1, reportedRecords: 3, redeliveredRecords: 3 });
  });

  it('retries the whole batch when an itemIdentifier names no record of it', async () => {
    await putValues('r0', 'r1', 'r2');
    let calls = 0;
    const { mapping, events } = await startMapping(
      table,
      async () => (++calls === 1 ? { batchItemFailures: [{ itemIdentifier: '999' }] } : null),
      { settings: { reportBatchItemFailures: true } },
    );

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([
      ['r0', 'r1', 'r2'],
      ['r0', 'r1', 'r2'],
    ]);
    expect(mapping.stats).toMatchObject({ invalidResponses: 1, partialFailures: 0 });
  });

  it('ignores batchItemFailures without it: the batch succeeded', async () => {
    await putValues('r0', 'r1');
    const { mapping, events } = await startMapping(table, async (event) => failuresAt(event, 'r0'));

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([['r0', 'r1']]);
  });
});

describe('after a failed invocation, the DynamoDB stream mapping', () => {
  it('retries the whole batch after a function error and after a timeout', async () => {
    await putValues('r0', 'r1');
    let calls = 0;
    const { mapping, events } = await startMapping(
      table,
      async () => {
        calls++;
        if (calls === 1) throw new RangeError('not yet');
        if (calls === 2) await new Promise((resolve) => setTimeout(resolve, 400));
        return undefined;
      },
      { settings: { functionTimeoutMs: 200 } },
    );

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([
      ['r0', 'r1'],
      ['r0', 'r1'],
      ['r0', 'r1'],
    ]);
    expect(mapping.stats).toMatchObject({
      functionErrors: 1,
      timeouts: 1,
      lastFunctionError: 'RangeError: not yet',
    });
  });

  it('retries the whole batch after a crash of the execution environment', async () => {
    await putValues('r0', 'r1');
    let invocations = 0;
    // The in-process runtime runs the handler, then loses its response: InvocationOutcome 'crashed'.
    const crashFirst = { crashAfterWrites: () => (++invocations === 1 ? 1 : undefined) };
    const { mapping, events } = await startMapping(table, async () => undefined, { faults: crashFirst });

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([
      ['r0', 'r1'],
      ['r0', 'r1'],
    ]);
    expect(mapping.stats).toMatchObject({ crashes: 1, invocations: 2, redeliveredRecords: 2 });
  });

  it('bisects a batch that fails (BisectBatchOnFunctionError) until the failing record is alone', async () => {
    await putValues('r0', 'r1', 'r2', 'r3', 'r4', 'poison', 'r6', 'r7');
    const { mapping, events } = await startMapping(
      table,
      async (event) => {
        // Fails while the poison record has company: alone, it goes through.
        if (event.Records.length > 1 && event.Records.some((record) => itemValue(record) === 'poison')) {
          throw new Error('poison in the batch');
        }
      },
      { settings: { bisectOnFunctionError: true, maxRetryAttempts: 0 } },
    );

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4', 'poison', 'r6', 'r7'],
      ['r0', 'r1', 'r2', 'r3'],
      ['r4', 'poison', 'r6', 'r7'],
      ['r4', 'poison'],
      ['r4'],
      ['poison'],
      ['r6', 'r7'],
    ]);
    // Splitting does not use up retries: with none allowed, nothing was discarded.
    expect(mapping.stats).toMatchObject({ bisections: 3, functionErrors: 3, destinationBatches: 0 });
  });

  it('discards a batch to the on-failure destination once retries are exhausted, then goes on', async () => {
    await putValues('r0', 'poison', 'r2', 'r3');
    const destination = new InMemoryDestination<StreamOnFailureRecord>();
    const { mapping, events } = await startMapping(
      table,
      async (event) => {
        if (event.Records.some((record) => itemValue(record) === 'poison')) throw new Error('poison');
      },
      { destination, settings: { batchSize: 2, maxRetryAttempts: 1 } },
    );

    await mapping.drained(DRAIN_MS);
    await table.put('r4', 'r4');
    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([['r0', 'poison'], ['r0', 'poison'], ['r2', 'r3'], ['r4']]);
    const sequences = await table.sequenceNumbers();
    expect(destination.records).toHaveLength(1);
    const [discarded] = destination.records;
    expect(discarded).toMatchObject({
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      DDBStreamBatchInfo: {
        shardId: mapping.progress()[0]?.shardId,
        startSequenceNumber: sequences[0],
        endSequenceNumber: sequences[1],
        approximateArrivalOfFirstRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        batchSize: 2,
        streamArn: mapping.streamArn,
      },
    });
    const payload = JSON.parse(discarded?.payload ?? '{}') as DynamoDBStreamEvent;
    expect(payload.Records.map(itemValue)).toEqual(['r0', 'poison']);
    expect(mapping.stats).toMatchObject({ destinationBatches: 1, destinationRecords: 2 });
  });

  it('keeps retrying a failing batch by default, and a drain gives up at its deadline naming what is kept', async () => {
    await putValues('r0');
    // BatchSize 1: the kept record fills the batch, so retries need no read (no I/O) between them.
    const { mapping } = await startMapping(
      table,
      async () => {
        throw new Error('always');
      },
      { settings: { batchSize: 1 } },
    );

    await expect(mapping.drained(300)).rejects.toThrow(
      /not drained within 300 ms \(.*: checkpoint none, 1 kept\)/,
    );
    expect(mapping.stats.functionErrors).toBeGreaterThan(1);
    expect(mapping.stats.destinationBatches).toBe(0);
  });

  it('discards records older than MaximumRecordAgeInSeconds without invoking the function', async () => {
    await putValues('r0', 'r1');
    const destination = new InMemoryDestination<StreamOnFailureRecord>();
    const { mapping, events } = await startMapping(table, async () => undefined, {
      destination,
      settings: { maxRecordAgeMs: 60_000 },
      now: () => Date.now() + 3_600_000,
    });

    await mapping.drained(DRAIN_MS);

    expect(events).toEqual([]);
    expect(destination.records.map((record) => record.requestContext.condition)).toEqual([
      'RecordAgeExceeded',
    ]);
    expect(destination.records[0]).toMatchObject({
      requestContext: { approximateInvokeCount: 0 },
      responseContext: null,
      DDBStreamBatchInfo: { batchSize: 2 },
    });
  });
});
