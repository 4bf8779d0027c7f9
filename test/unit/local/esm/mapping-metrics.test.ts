import { describe, expect, it } from 'vitest';
import type { EsmSettings } from '../../../../local/esm/esm-settings.js';
import { EventSourceMapping } from '../../../../local/esm/event-source-mapping.js';
import { InMemoryLog } from '../../../../local/esm/in-memory-log.js';
import { InProcessFunction, type KafkaHandler } from '../../../../local/esm/lambda-function.js';
import { MappingMetrics } from '../../../../local/esm/mapping-metrics.js';
import { InMemoryDestination } from '../../../../local/esm/on-failure-destination.js';

const TOPIC = 'orders';

/** Two partitions of five records each through a mapping whose ports are metered. */
async function run(
  handler: KafkaHandler,
  settings: Pick<EsmSettings, 'maxRetryAttempts' | 'filters'> = {},
): Promise<MappingMetrics> {
  const log = new InMemoryLog({ topics: { [TOPIC]: 2 } });
  await log.produce(
    [0, 1].flatMap((partition) =>
      Array.from({ length: 5 }, (_, offset) => ({
        topic: TOPIC,
        partition,
        key: null,
        value: Buffer.from(JSON.stringify({ even: offset % 2 === 0 })),
      })),
    ),
  );
  const metrics = new MappingMetrics();
  const mapping = new EventSourceMapping({
    source: metrics.source(log.consumer('group')),
    function: metrics.function(new InProcessFunction(handler)),
    destination: metrics.destination(new InMemoryDestination()),
    settings: { batchingWindowMs: 0, batchSize: 5, ...settings },
  });
  metrics.countFrom('FilteredOutEventCount', () => mapping.stats.filteredOutRecords);
  await mapping.start();
  try {
    await mapping.waitUntilCaughtUp(10_000);
  } finally {
    await mapping.stop();
  }
  return metrics;
}

const total = (metrics: MappingMetrics, name: string) =>
  (metrics.samples(name) ?? []).reduce((sum, s) => sum + s.value, 0);

describe('MappingMetrics', () => {
  it('counts polled, invoked and committed records, and a redelivery as polled and invoked again', async () => {
    let failedOnce = false;
    const metrics = await run(async (event) => {
      const first = event.records[`${TOPIC}-0`]?.[2];
      if (first && !failedOnce) {
        failedOnce = true;
        return { batchItemFailures: [{ itemIdentifier: { partition: `${TOPIC}-0`, offset: first.offset } }] };
      }
      return {};
    });

    // Offsets 2..4 of partition 0 come twice; every record is committed once.
    expect(total(metrics, 'CommittedEventCount')).toBe(10);
    expect(total(metrics, 'PolledEventCount')).toBe(13);
    expect(total(metrics, 'InvokedEventCount')).toBe(13);
    expect(total(metrics, 'Errors')).toBe(0);
    expect(total(metrics, 'Invocations')).toBe(metrics.samples('Duration')?.length);
    expect(metrics.samples('OffsetLag')?.at(-1)?.value).toBe(0);
    expect(Math.max(...(metrics.samples('SumOffsetLag') ?? []).map((s) => s.value))).toBe(10);
  });

  it('counts function errors with their records, and records given up as delivered to the destination', async () => {
    const metrics = await run(
      async (event) => {
        if (event.records[`${TOPIC}-1`]) throw new Error('boom');
        return {};
      },
      { maxRetryAttempts: 1 },
    );

    expect(total(metrics, 'FailedInvokeEventCount')).toBe(10);
    expect(total(metrics, 'Errors')).toBe(2);
    expect(total(metrics, 'OnFailureDestinationDeliveredEventCount')).toBe(5);
    expect(total(metrics, 'CommittedEventCount')).toBe(10);
  });

  it("counts the records the mapping's filters keep from the function", async () => {
    const metrics = await run(async () => ({}), { filters: [{ value: { even: [true] } }] });

    expect(total(metrics, 'FilteredOutEventCount')).toBe(4);
    expect(total(metrics, 'InvokedEventCount')).toBe(6);
    expect(total(metrics, 'CommittedEventCount')).toBe(10);
  });

  it('records a filter that kept nothing back, and DroppedEventCount, as zeros: counted, none found', async () => {
    const metrics = await run(async () => ({}));

    const values = (name: string) => (metrics.samples(name) ?? []).map((s) => s.value);
    expect(values('FilteredOutEventCount').length).toBeGreaterThan(0);
    expect(new Set(values('FilteredOutEventCount'))).toEqual(new Set([0]));
    // The emulator always has an on-failure destination: a record given up on goes there, never dropped.
    expect(values('DroppedEventCount').length).toBeGreaterThan(0);
    expect(new Set(values('DroppedEventCount'))).toEqual(new Set([0]));
  });

  it('has no counterpart of the error counts and throttles, which the emulator cannot produce', async () => {
    const metrics = new MappingMetrics();
    expect(metrics.samples('PollingErrorCount')).toBeUndefined();
    expect(metrics.samples('Throttles')).toBeUndefined();
  });
});
