import { describe, expect, it } from 'vitest';
import type { KafkaRecordFilter } from '../../../../lib/kafka-filters.js';
import { EsmSettingsError } from '../../../../local/esm/esm-settings.js';
import { EventSourceMapping } from '../../../../local/esm/event-source-mapping.js';
import { InMemoryLog } from '../../../../local/esm/in-memory-log.js';
import { InProcessFunction, type KafkaHandler } from '../../../../local/esm/lambda-function.js';
import type { MskEvent } from '../../../../local/esm/msk-event.js';
import { InMemoryDestination } from '../../../../local/esm/on-failure-destination.js';

const TOPIC = 'orders';
const PLACED_ONLY: KafkaRecordFilter[] = [{ value: { type: ['order.placed'] } }];

/** Values per partition, each a JSON object or a plain string. */
async function run(
  values: readonly (readonly (Record<string, unknown> | string)[])[],
  handler: KafkaHandler,
  filters: readonly KafkaRecordFilter[] = PLACED_ONLY,
) {
  const log = new InMemoryLog({ topics: { [TOPIC]: values.length } });
  await log.produce(
    values.flatMap((partitionValues, partition) =>
      partitionValues.map((value) => ({
        topic: TOPIC,
        partition,
        key: null,
        value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
        timestamp: 1_000,
      })),
    ),
  );
  const events: MskEvent[] = [];
  const mapping = new EventSourceMapping({
    source: log.consumer('group'),
    function: new InProcessFunction(async (event, context) => {
      events.push(event);
      return handler(event, context);
    }),
    destination: new InMemoryDestination(),
    settings: { batchingWindowMs: 0, filters },
    now: () => 2_000,
  });
  await mapping.start();
  try {
    await mapping.waitUntilCaughtUp(10_000);
  } finally {
    await mapping.stop();
  }
  const committed = values.map((_, partition) => log.committedOffset('group', { topic: TOPIC, partition }));
  const delivered = (event: MskEvent | undefined, key: string) =>
    (event?.records[key] ?? []).map((record) => record.offset);
  return { events, committed, stats: mapping.stats, delivered };
}

const placed = { type: 'order.placed' };
const shipped = { type: 'order.shipped' };

describe('EventSourceMapping with filters', () => {
  it('never delivers a filtered-out record, and commits it with the batch', async () => {
    const result = await run([[placed, shipped, placed, shipped, shipped]], async () => null);
    expect(result.events).toHaveLength(1);
    expect(result.delivered(result.events[0], 'orders-0')).toEqual([0, 2]);
    expect(result.committed).toEqual([5]);
    expect(result.stats.filteredOutRecords).toBe(3);
    expect(result.stats.deliveredRecords).toBe(2);
  });

  it('commits a batch where nothing matches without invoking the function', async () => {
    const result = await run([[shipped, shipped], [placed]], async () => null);
    expect(result.events).toHaveLength(1);
    expect(Object.keys(result.events[0]?.records ?? {})).toEqual(['orders-1']);
    expect(result.committed).toEqual([2, 1]);
    expect(result.stats.filteredOutRecords).toBe(2);
  });

  it('on a reported record, commits the filtered records before it and filters the later ones again on redelivery', async () => {
    let calls = 0;
    const result = await run([[shipped, placed, shipped, placed, shipped]], async () => {
      calls++;
      return calls === 1
        ? { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 1 } }] }
        : null;
    });
    expect(result.events.map((event) => result.delivered(event, 'orders-0'))).toEqual([
      [1, 3],
      [1, 3],
    ]);
    expect(result.committed).toEqual([5]);
    // Offset 0 once; offsets 2 and 4 in both polls.
    expect(result.stats.filteredOutRecords).toBe(5);
  });

  it('after a function error, polls a partition whose records were all filtered out again: nothing is committed before the retry succeeds', async () => {
    let calls = 0;
    const result = await run([[placed], [shipped, shipped]], async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return null;
    });
    expect(result.events).toHaveLength(2);
    expect(result.committed).toEqual([1, 2]);
    expect(result.stats.filteredOutRecords).toBe(4);
  });

  it('matches plain string values with rules on value, and lets a value through that is not JSON when the filter is on fields', async () => {
    const onString = await run([['error', 'all good', 'error']], async () => null, [
      { value: [{ 'anything-but': ['error'] }] },
    ]);
    expect(onString.delivered(onString.events[0], 'orders-0')).toEqual([1]);
    expect(onString.committed).toEqual([3]);
    const onFields = await run([['{"truncated":', shipped]], async () => null);
    expect(onFields.delivered(onFields.events[0], 'orders-0')).toEqual([0]);
  });

  it("refuses filters the construct's synth would refuse", () => {
    expect(
      () =>
        new EventSourceMapping({
          source: new InMemoryLog({ topics: { [TOPIC]: 1 } }).consumer('group'),
          function: new InProcessFunction(async () => null),
          destination: new InMemoryDestination(),
          settings: { filters: [{ value: { a: [{ wildcard: '*' }] } }] },
        }),
    ).toThrow(EsmSettingsError);
  });
});
