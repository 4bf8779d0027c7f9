import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

const succeed = async () => undefined;

describe('the DynamoDB stream mapping delivers', () => {
  it("every change in per-item order, shaped as Lambda's stream event", async () => {
    const { mapping, events } = await startMapping(table, succeed);
    await table.put('a', 'a1', { bytes: { B: Buffer.from('hi') } });
    await table.put('b', 'b1');
    await table.put('a', 'a2');
    await table.put('b', 'b2');
    await table.remove('a');

    await mapping.drained(DRAIN_MS);

    const records = events.flatMap((event) => event.Records);
    expect(records.map(itemValue)).toEqual(['a1', 'b1', 'a2', 'b2', '(REMOVE)']);
    expect(records.map((record) => record.eventName)).toEqual([
      'INSERT',
      'INSERT',
      'MODIFY',
      'MODIFY',
      'REMOVE',
    ]);
    const sequences = records.map((record) => BigInt(sequenceOf(record)));
    expect([...sequences].sort((x, y) => (x < y ? -1 : 1))).toEqual(sequences);
    const [first] = records;
    expect(first).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventVersion: expect.any(String),
      awsRegion: expect.any(String),
      eventSourceARN: mapping.streamArn,
      eventID: expect.any(String),
      dynamodb: {
        Keys: { pk: { S: 'a' } },
        // Binary attributes travel as base64 in Lambda's JSON.
        NewImage: { pk: { S: 'a' }, value: { S: 'a1' }, bytes: { B: Buffer.from('hi').toString('base64') } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_IMAGE',
      },
    });
    // Epoch seconds (DynamoDB Local rounds them down to the minute).
    expect(Math.abs((first?.dynamodb?.ApproximateCreationDateTime ?? 0) - Date.now() / 1000)).toBeLessThan(
      120,
    );
    expect(records.at(-1)?.dynamodb).not.toHaveProperty('NewImage');
    expect(mapping.stats).toMatchObject({
      invocations: events.length,
      deliveredRecords: 5,
      redeliveredRecords: 0,
    });
  });

  it('batches of at most BatchSize records, the records before the start included (TRIM_HORIZON)', async () => {
    for (let n = 1; n <= 7; n++) await table.put(`k${n}`, `v${n}`);
    const { mapping, events } = await startMapping(table, succeed, { settings: { batchSize: 3 } });

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([['v1', 'v2', 'v3'], ['v4', 'v5', 'v6'], ['v7']]);
  });

  it('one batch of what was written within the batching window', async () => {
    const { mapping, events } = await startMapping(table, succeed, { settings: { batchingWindowMs: 1500 } });
    for (let n = 1; n <= 4; n++) {
      await table.put(`k${n}`, `v${n}`);
      // Far apart for the shard's polls (every 20 ms here): without the window, four batches.
      await sleep(100);
    }

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([['v1', 'v2', 'v3', 'v4']]);
  });

  it('only what is written after the start with LATEST', async () => {
    await table.put('before', 'old');
    const { mapping, events } = await startMapping(table, succeed, {
      settings: { startingPosition: 'LATEST' },
    });
    await table.put('after', 'new');

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events)).toEqual([['new']]);
  });

  it('only records a filter matches, and checkpoints past the others', async () => {
    const appended = { change: { S: 'appended' } };
    const published = { change: { S: 'published' } };
    const { mapping, events } = await startMapping(table, succeed, {
      settings: {
        filters: [
          { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { change: { S: ['appended'] } } } },
        ],
      },
    });
    await table.put('q1', 'one', appended);
    await table.put('q1', 'one published', published);
    await table.put('q2', 'two', appended);
    await table.remove('q2');
    await table.put('q3', 'three published', published);

    await mapping.drained(DRAIN_MS);

    expect(valuesOf(events).flat()).toEqual(['one', 'two']);
    expect(mapping.stats.filteredOutRecords).toBe(3);
    const all = await table.sequenceNumbers();
    expect(mapping.progress()).toEqual([
      { shardId: expect.any(String), checkpoint: all.at(-1), pending: 0, ended: false },
    ]);

    // Only filtered records since: no invocation, and the checkpoint moves past them all the same.
    await table.put('q4', 'four published', published);
    await mapping.drained(DRAIN_MS);

    expect(events).toHaveLength(1);
    expect(mapping.progress()[0]?.checkpoint).toBe((await table.sequenceNumbers()).at(-1));
  });
});
