import { describe, expect, it } from 'vitest';
import type { EsmSettings } from '../../../../local/esm/esm-settings.js';
import { EventSourceMapping } from '../../../../local/esm/event-source-mapping.js';
import { FaultPlan } from '../../../../local/esm/fault-plan.js';
import { InMemoryLog } from '../../../../local/esm/in-memory-log.js';
import { InProcessFunction, type KafkaHandler } from '../../../../local/esm/lambda-function.js';
import type { MskEvent } from '../../../../local/esm/msk-event.js';
import { InMemoryDestination } from '../../../../local/esm/on-failure-destination.js';
import type { RecordSource } from '../../../../local/esm/record-source.js';

const TOPIC = 'orders';

interface Harness {
  readonly log: InMemoryLog;
  readonly events: MskEvent[];
  readonly destination: InMemoryDestination;
  readonly mapping: EventSourceMapping;
}

/** A log of `partitions` partitions with `perPartition` records each, values "p<partition>-<offset>". */
async function harness(
  handler: KafkaHandler,
  options: {
    partitions?: number;
    perPartition?: number;
    settings?: EsmSettings;
    faults?: FaultPlan;
    now?: () => number;
  } = {},
): Promise<Harness> {
  const partitions = options.partitions ?? 2;
  const log = new InMemoryLog({ topics: { [TOPIC]: partitions } });
  const records = [];
  for (let partition = 0; partition < partitions; partition++) {
    for (let offset = 0; offset < (options.perPartition ?? 5); offset++) {
      records.push({
        topic: TOPIC,
        partition,
        key: null,
        value: Buffer.from(`p${partition}-${offset}`),
        timestamp: 1_000,
      });
    }
  }
  await log.produce(records);
  const events: MskEvent[] = [];
  const destination = new InMemoryDestination();
  const mapping = new EventSourceMapping({
    source: log.consumer('test-group'),
    function: new InProcessFunction(async (event, context) => {
      events.push(event);
      return handler(event, context);
    }),
    destination,
    settings: { batchingWindowMs: 0, ...options.settings },
    ...(options.faults ? { faults: options.faults } : {}),
    now: options.now ?? (() => 2_000),
  });
  return { log, events, destination, mapping };
}

async function runToEnd(h: Harness): Promise<void> {
  await h.mapping.start();
  try {
    await h.mapping.waitUntilCaughtUp(10_000);
  } finally {
    await h.mapping.stop();
  }
}

/** The delivered records of one partition key, as "offset" numbers, per invocation. */
function offsetsOf(event: MskEvent | undefined, key: string): number[] {
  return (event?.records[key] ?? []).map((record) => record.offset);
}

function committed(h: Harness, partition: number): number | undefined {
  return h.log.committedOffset('test-group', { topic: TOPIC, partition });
}

describe('EventSourceMapping', () => {
  it('delivers every record once and commits to the log end when the function succeeds', async () => {
    const h = await harness(async () => ({ batchItemFailures: [] }));
    await runToEnd(h);
    expect(h.events).toHaveLength(1);
    expect(offsetsOf(h.events[0], 'orders-0')).toEqual([0, 1, 2, 3, 4]);
    expect(offsetsOf(h.events[0], 'orders-1')).toEqual([0, 1, 2, 3, 4]);
    expect([committed(h, 0), committed(h, 1)]).toEqual([5, 5]);
    expect(h.mapping.stats.redeliveredRecords).toBe(0);
  });

  it('redelivers exactly the failed partition from offset k on and commits the others when k is reported', async () => {
    let calls = 0;
    const h = await harness(async () => {
      calls++;
      return calls === 1
        ? { batchItemFailures: [{ itemIdentifier: { partition: 'orders-1', offset: 2 } }] }
        : null;
    });
    await runToEnd(h);
    expect(h.events).toHaveLength(2);
    expect(Object.keys(h.events[1]?.records ?? {})).toEqual(['orders-1']);
    expect(offsetsOf(h.events[1], 'orders-1')).toEqual([2, 3, 4]);
    expect(h.mapping.stats.redeliveredRecords).toBe(3);
    expect([committed(h, 0), committed(h, 1)]).toEqual([5, 5]);
  });

  it('redelivers from the lowest reported offset when a partition reports several', async () => {
    let calls = 0;
    const h = await harness(async () => {
      calls++;
      if (calls > 1) return { batchItemFailures: [] };
      return {
        batchItemFailures: [
          { itemIdentifier: { partition: 'orders-0', offset: 4 } },
          { itemIdentifier: { partition: 'orders-0', offset: 1 } },
        ],
      };
    });
    await runToEnd(h);
    expect(offsetsOf(h.events[1], 'orders-0')).toEqual([1, 2, 3, 4]);
    expect(h.events[1]?.records['orders-1']).toBeUndefined();
  });

  it('retries the whole batch when an identifier is not in the event', async () => {
    let calls = 0;
    const h = await harness(async () => {
      calls++;
      return calls === 1
        ? { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 99 } }] }
        : {};
    });
    await runToEnd(h);
    expect(h.events).toHaveLength(2);
    expect(h.events[1]).toEqual(h.events[0]);
    expect(h.mapping.stats.invalidResponses).toBe(1);
  });

  it('retries the whole batch when the identifier is a flat string', async () => {
    let calls = 0;
    const h = await harness(async () => {
      calls++;
      return calls === 1 ? { batchItemFailures: [{ itemIdentifier: 'orders-0@3' }] } : {};
    });
    await runToEnd(h);
    expect(h.events[1]).toEqual(h.events[0]);
  });

  it('retries the whole batch when the function throws', async () => {
    let calls = 0;
    const h = await harness(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return { batchItemFailures: [] };
    });
    await runToEnd(h);
    expect(h.events).toHaveLength(2);
    expect(h.events[1]).toEqual(h.events[0]);
    expect(h.mapping.stats.functionErrors).toBe(1);
  });

  it('sends the failed records to the destination in the S3 shape and moves on when retries are exhausted', async () => {
    const h = await harness(
      async () => ({ batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 3 } }] }),
      {
        partitions: 1,
        settings: { maxRetryAttempts: 2 },
      },
    );
    await runToEnd(h);
    // The first attempt and two retries.
    expect(h.events).toHaveLength(3);
    expect(h.destination.records).toHaveLength(1);
    const failure = h.destination.records[0];
    expect(failure?.requestContext).toMatchObject({
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 3,
    });
    expect(failure?.KafkaBatchInfo.recordsInfo).toEqual({
      'orders-0': {
        firstRecordOffset: '3',
        lastRecordOffset: '4',
        firstRecordTimestamp: '1970-01-01T00:00:01.000Z',
        lastRecordTimestamp: '1970-01-01T00:00:01.000Z',
      },
    });
    const payload = JSON.parse(failure?.payload ?? '{}') as MskEvent;
    expect(offsetsOf(payload, 'orders-0')).toEqual([3, 4]);
    expect(committed(h, 0)).toBe(5);
  });

  it('lets timers run while a batch is retried for ever: the wait for the log end gives up at its deadline', async () => {
    const h = await harness(
      async () => {
        throw new Error('always');
      },
      { partitions: 1, perPartition: 1, settings: { hasOnFailureDestination: false } },
    );
    await h.mapping.start();
    try {
      await expect(h.mapping.waitUntilCaughtUp(300)).rejects.toThrow(/did not catch up within 300 ms/);
    } finally {
      await h.mapping.stop();
    }
    expect(h.mapping.stats.functionErrors).toBeGreaterThan(1);
  });

  it('caps infinite retries at 10 when a destination is configured', async () => {
    const h = await harness(
      async () => {
        throw new Error('always');
      },
      { partitions: 1, perPartition: 1 },
    );
    await runToEnd(h);
    expect(h.events).toHaveLength(11);
    expect(h.destination.records[0]?.responseContext).toMatchObject({ functionError: 'Unhandled' });
  });

  it('discards records older than the maximum record age to the destination without invoking', async () => {
    const h = await harness(async () => ({}), {
      partitions: 1,
      settings: { maxRecordAgeMs: 60_000 },
      now: () => 1_000 + 60_001,
    });
    await runToEnd(h);
    expect(h.events).toHaveLength(0);
    expect(h.destination.records[0]?.requestContext).toMatchObject({
      condition: 'RecordAgeExceeded',
      approximateInvokeCount: 0,
    });
    expect(committed(h, 0)).toBe(5);
  });

  it('keeps retrying records younger than the maximum record age', async () => {
    let now = 1_000;
    let calls = 0;
    const h = await harness(
      async () => {
        calls++;
        // Time passes with each failed attempt: ages 0, 30 s and 60 s are retried, 90 s is too old.
        now += 30_000;
        return { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 0 } }] };
      },
      {
        partitions: 1,
        settings: { maxRecordAgeMs: 60_000, maxRetryAttempts: -1, hasOnFailureDestination: false },
        now: () => now,
      },
    );
    await runToEnd(h);
    expect(calls).toBe(3);
    expect(h.destination.records[0]?.requestContext.condition).toBe('RecordAgeExceeded');
  });

  it('splits batches at the batch size', async () => {
    const h = await harness(async () => null, { partitions: 1, perPartition: 7, settings: { batchSize: 3 } });
    await runToEnd(h);
    expect(h.events.map((event) => offsetsOf(event, 'orders-0'))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('splits batches at 6 MB and discards a record too large to invoke alone', async () => {
    const log = new InMemoryLog({ topics: { [TOPIC]: 1 } });
    const mb = 1024 * 1024;
    await log.produce(
      [2, 2, 2, 2, 7, 1].map((size) => ({
        topic: TOPIC,
        partition: 0,
        key: null,
        value: Buffer.alloc(size * mb * 0.74),
      })),
    );
    const batches: number[][] = [];
    const destination = new InMemoryDestination();
    const mapping = new EventSourceMapping({
      source: log.consumer('g'),
      function: new InProcessFunction(async (event) => {
        batches.push(offsetsOf(event, 'orders-0'));
        return null;
      }),
      destination,
      settings: { batchingWindowMs: 0 },
    });
    await mapping.start();
    await mapping.waitUntilCaughtUp(10_000);
    await mapping.stop();
    // base64 grows 0.74 * 2 MB to ~1.97 MB: three fit in 6 MB, four do not; 7 MB never fits.
    expect(batches).toEqual([[0, 1, 2], [3], [5]]);
    expect(destination.records.map((r) => [r.requestContext.condition, r.responseContext])).toEqual([
      ['MaximumPayloadSizeExceeded', null],
    ]);
    expect(log.committedOffset('g', { topic: TOPIC, partition: 0 })).toBe(6);
  });

  it('isolates a failing record by bisecting when bisect on function error is enabled', async () => {
    const h = await harness(
      async (event) => {
        if (event.records['orders-0']?.some((record) => record.offset === 5)) throw new Error('poison');
        return null;
      },
      { partitions: 1, perPartition: 8, settings: { bisectOnFunctionError: true, maxRetryAttempts: 1 } },
    );
    await runToEnd(h);
    expect(h.destination.records).toHaveLength(1);
    expect(offsetsOf(JSON.parse(h.destination.records[0]?.payload ?? '{}') as MskEvent, 'orders-0')).toEqual([
      5,
    ]);
    expect(h.mapping.stats.bisections).toBeGreaterThan(0);
    expect(committed(h, 0)).toBe(8);
  });

  it('sends the whole batch to the destination when bisect is off and the function keeps failing', async () => {
    const h = await harness(
      async (event) => {
        if (event.records['orders-0']?.some((record) => record.offset === 5)) throw new Error('poison');
        return null;
      },
      { partitions: 1, perPartition: 8, settings: { maxRetryAttempts: 1 } },
    );
    await runToEnd(h);
    expect(
      offsetsOf(JSON.parse(h.destination.records[0]?.payload ?? '{}') as MskEvent, 'orders-0'),
    ).toHaveLength(8);
  });

  it('delivers a successful batch again when a duplicate delivery is injected', async () => {
    const h = await harness(async () => null, {
      faults: new FaultPlan({ duplicateDeliveryRate: 0.5, seed: 7 }),
      perPartition: 10,
      settings: { batchSize: 2 },
    });
    await runToEnd(h);
    expect(h.mapping.stats.duplicateDeliveries).toBeGreaterThan(0);
    // Ten batches of two, each duplicate delivery an identical event right after its original.
    expect(h.events).toHaveLength(10 + h.mapping.stats.duplicateDeliveries);
    const repeats = h.events.filter(
      (event, index) => JSON.stringify(event) === JSON.stringify(h.events[index - 1]),
    );
    expect(repeats).toHaveLength(h.mapping.stats.duplicateDeliveries);
    expect([committed(h, 0), committed(h, 1)]).toEqual([10, 10]);
  });

  it('redelivers the batch when an injected crash loses the response', async () => {
    const h = await harness(async () => null, {
      faults: new FaultPlan({ crashRate: 0.5, seed: 3 }),
      perPartition: 10,
      settings: { batchSize: 2 },
    });
    await runToEnd(h);
    expect(h.mapping.stats.crashes).toBeGreaterThan(0);
    // Ten batches of two, plus one redelivery per crash.
    expect(h.events).toHaveLength(10 + h.mapping.stats.crashes);
    expect(h.mapping.stats.redeliveredRecords).toBe(2 * h.mapping.stats.crashes);
    expect([committed(h, 0), committed(h, 1)]).toEqual([10, 10]);
  });

  it('ignores the response of a fenced overlapping invocation', async () => {
    const h = await harness(
      async (event) =>
        // The fenced invocation never starts at offset 0 of both partitions; it reports a failure that must not count.
        offsetsOf(event, 'orders-0')[0] === 0 && offsetsOf(event, 'orders-1')[0] === 0
          ? null
          : {
              batchItemFailures: [
                { itemIdentifier: { partition: Object.keys(event.records)[0] ?? '', offset: 4 } },
              ],
            },
      { faults: new FaultPlan({ overlappingInvocationRate: 1, seed: 11 }), partitions: 2, perPartition: 5 },
    );
    await runToEnd(h);
    expect(h.mapping.stats.overlappingInvocations).toBe(1);
    expect(h.events).toHaveLength(2);
    expect([committed(h, 0), committed(h, 1)]).toEqual([5, 5]);
  });

  it('resumes from the committed offsets when a new consumer of the group starts', async () => {
    const h = await harness(async () => null, { partitions: 1, perPartition: 3 });
    await runToEnd(h);
    await h.log.produce([{ topic: TOPIC, partition: 0, key: null, value: Buffer.from('late') }]);
    const seen: number[] = [];
    const second = new EventSourceMapping({
      source: h.log.consumer('test-group'),
      function: new InProcessFunction(async (event) => {
        seen.push(...offsetsOf(event, 'orders-0'));
        return null;
      }),
      destination: new InMemoryDestination(),
      settings: { batchingWindowMs: 0 },
    });
    await second.start();
    await second.waitUntilCaughtUp(10_000);
    await second.stop();
    expect(seen).toEqual([3]);
  });

  it('gives each poller its own partitions so a partition is never in two invocations at once', async () => {
    const inFlight = new Set<string>();
    let overlaps = 0;
    const h = await harness(
      async (event) => {
        const keys = Object.keys(event.records);
        if (keys.some((key) => inFlight.has(key))) overlaps++;
        for (const key of keys) inFlight.add(key);
        await new Promise((resolve) => setTimeout(resolve, 2));
        for (const key of keys) inFlight.delete(key);
        return null;
      },
      { partitions: 4, perPartition: 20, settings: { pollers: 2, batchSize: 5 } },
    );
    await runToEnd(h);
    expect(overlaps).toBe(0);
    expect(h.events.every((event) => Object.keys(event.records).length <= 2)).toBe(true);
  });

  it('reads the progress after each commit and on a slow recheck, not in a tight loop, while waiting to catch up', async () => {
    const log = new InMemoryLog({ topics: { [TOPIC]: 1 } });
    await log.produce([{ topic: TOPIC, partition: 0, key: null, value: Buffer.from('slow') }]);
    const consumer = log.consumer('test-group');
    let progressReads = 0;
    const source: RecordSource = {
      bootstrapServers: consumer.bootstrapServers,
      describe: () => consumer.describe(),
      start: () => consumer.start(),
      assignments: () => consumer.assignments(),
      poll: (tp, options) => consumer.poll(tp, options),
      seek: (tp, offset) => consumer.seek(tp, offset),
      commit: (tp, offset) => consumer.commit(tp, offset),
      progress: () => {
        progressReads++;
        return consumer.progress();
      },
      close: () => consumer.close(),
    };
    const mapping = new EventSourceMapping({
      source,
      function: new InProcessFunction(async () => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return null;
      }),
      destination: new InMemoryDestination(),
      settings: { batchingWindowMs: 0 },
    });
    await mapping.start();
    const started = Date.now();
    await mapping.waitUntilCaughtUp(10_000, 250);
    const waited = Date.now() - started;
    await mapping.stop();
    // One read to start, one per recheck while the invocation runs (a 20 ms loop read about 30 times), one
    // after the commit, which ends the wait.
    expect(waited).toBeGreaterThanOrEqual(550);
    expect(progressReads).toBeLessThanOrEqual(2 + Math.ceil(waited / 250));
    expect(await consumer.progress()).toEqual([
      { topic: TOPIC, partition: 0, committedOffset: 1, endOffset: 1 },
    ]);
  });
});
