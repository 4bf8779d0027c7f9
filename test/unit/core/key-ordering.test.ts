import { describe, expect, it } from 'vitest';
import { type BatchProcessorOptions, processBatch } from '../../../lambdas/core/batch-processor.js';
import { toBatchResponse } from '../../../lambdas/core/batch-response.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { InboxStoreError } from '../../../lambdas/core/errors.js';
import type { KeySource } from '../../../lambdas/core/ordering.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';
import { trackingEffect } from '../../support/tracking-effect.js';

const byKafkaKey: KeySource = { from: 'kafka-key' };

function setup(overrides: Partial<BatchProcessorOptions> = {}, keyConcurrency = 8) {
  const clock = new ManualClock();
  const store = new MemoryInboxStore(clock);
  const options = processorOptions(store, clock, {
    ordering: { by: 'key', keySource: byKafkaKey, keyConcurrency },
    ...overrides,
  });
  const run = (specs: RecordSpec[]) => processBatch(decodeEvent(kafkaEvent(specs)), options);
  return { store, run };
}

/** A record of partition 0 with Kafka key `key` and event id `id`. */
const rec = (offset: number, key: string | null, id = `e${offset}`, partition = 0): RecordSpec => ({
  offset,
  partition,
  key,
  headers: { event_id: id },
  value: { n: id, account: key },
});

describe('processBatch with ORDERING=key', () => {
  it('runs the records of one key in offset order and different keys of a partition concurrently', async () => {
    const tracking = trackingEffect();
    const { run } = setup({ effect: tracking.effect });

    const outcomes = await run([
      rec(1, 'a'),
      rec(2, 'b'),
      rec(3, 'a'),
      rec(4, 'c'),
      rec(5, 'b'),
      rec(6, 'a'),
    ]);

    expect(outcomes.map((o) => [o.coordinates, o.status])).toEqual(
      [1, 2, 3, 4, 5, 6].map((offset) => [`orders-0@${offset}`, 'processed']),
    );
    expect(tracking.started.filter((s) => s.startsWith('a:'))).toEqual(['a:e1', 'a:e3', 'a:e6']);
    expect(tracking.started.filter((s) => s.startsWith('b:'))).toEqual(['b:e2', 'b:e5']);
    expect(tracking.maxRunning()).toBe(3);
  });

  it('never runs more keys of one partition at once than KEY_CONCURRENCY', async () => {
    const tracking = trackingEffect();
    const { run } = setup({ effect: tracking.effect }, 2);

    await run(['a', 'b', 'c', 'd', 'e'].map((key, index) => rec(index + 1, key)));

    expect(tracking.maxRunning()).toBe(2);
  });

  it('starts the lowest offset whose key is free first', async () => {
    const tracking = trackingEffect(1);
    const { run } = setup({ effect: tracking.effect }, 1);

    await run([rec(1, 'a'), rec(2, 'b'), rec(3, 'a'), rec(4, 'c')]);

    expect(tracking.started).toEqual(['a:e1', 'b:e2', 'a:e3', 'c:e4']);
  });

  it('keeps records without a key in one lane, in offset order', async () => {
    const tracking = trackingEffect();
    const { run } = setup({ effect: tracking.effect });

    await run([rec(1, null), rec(2, null), rec(3, null)]);

    expect(tracking.started).toEqual(['-:e1', '-:e2', '-:e3']);
    expect(tracking.maxRunning()).toBe(1);
  });

  it('orders by a field of the value with KEY_SOURCE=field:<name>', async () => {
    const tracking = trackingEffect(5, ({ dedupKey }) => dedupKey);
    const { run } = setup({
      ordering: { by: 'key', keySource: { from: 'field', field: 'account' }, keyConcurrency: 8 },
      effect: tracking.effect,
    });

    // The Kafka key is the same for all; the account field makes two lanes.
    await run([
      { offset: 1, key: 'k', headers: { event_id: 'x1' }, value: { account: 'x' } },
      { offset: 2, key: 'k', headers: { event_id: 'y1' }, value: { account: 'y' } },
      { offset: 3, key: 'k', headers: { event_id: 'x2' }, value: { account: 'x' } },
    ]);

    expect(tracking.maxRunning()).toBe(2);
    expect(tracking.started.indexOf('x1')).toBeLessThan(tracking.started.indexOf('x2'));
  });

  it('does not start records after a reported one, still runs earlier ones of other keys, and reports every later record', async () => {
    const { store, run } = setup({
      effect: async ({ dedupKey }) => {
        // Key a is slow: the failure at offset 2 happens while offset 1 is still running.
        if (dedupKey === 'e1') await new Promise((resolve) => setTimeout(resolve, 20));
        return { kind: 'transact', writes: [] };
      },
    });
    store.failOn = (operation, key) =>
      operation === 'commit' && key === 'e2' ? new InboxStoreError('throttled') : undefined;

    const outcomes = await run([rec(1, 'a'), rec(2, 'b'), rec(3, 'c'), rec(4, 'b'), rec(5, 'a')]);

    expect(outcomes.map((o) => [o.coordinates, o.status])).toEqual([
      ['orders-0@1', 'processed'],
      ['orders-0@2', 'failed'],
      // Started before the failure was known: finished, yet reported below.
      ['orders-0@3', 'processed'],
      ['orders-0@4', 'blocked'],
      ['orders-0@5', 'blocked'],
    ]);
    expect(store.calls.map((call) => call.key)).not.toContain('e4');
    expect(toBatchResponse(outcomes).batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([
      2, 3, 4, 5,
    ]);
  });

  it('reports nothing of other partitions when one partition has a failure', async () => {
    const { store, run } = setup();
    store.failOn = (operation, key) =>
      operation === 'commit' && key === 'e1' ? new InboxStoreError('throttled') : undefined;

    const outcomes = await run([rec(1, 'a'), rec(2, 'b'), rec(7, 'a', 'p1', 1)]);

    expect(toBatchResponse(outcomes).batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'orders-0', offset: 1 } },
      { itemIdentifier: { partition: 'orders-0', offset: 2 } },
    ]);
  });

  it('defers records once the deadline is near and blocks the later ones', async () => {
    let remaining = 10_000;
    const { run } = setup(
      {
        remainingTimeMs: () => remaining,
        effect: () => {
          remaining -= 5_000;
          return { kind: 'transact', writes: [] };
        },
      },
      1,
    );

    const outcomes = await run([rec(1, 'a'), rec(2, 'b'), rec(3, 'c'), rec(4, 'a')]);

    expect(outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['processed', undefined],
      ['processed', undefined],
      ['deferred', 'deadline'],
      ['deferred', 'not-started'],
    ]);
  });

  it('collapses copies of one event id that arrive under different keys', async () => {
    const { store, run } = setup();

    const copy = (offset: number, key: string): RecordSpec => ({
      offset,
      key,
      headers: { event_id: 'same' },
      value: { n: 'same' },
    });

    const outcomes = await run([copy(1, 'a'), copy(2, 'b'), rec(3, 'c', 'other')]);

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'duplicate', 'processed']);
    expect(store.calls.filter((call) => call.key === 'same')).toHaveLength(1);
  });
});

describe('toBatchResponse under per-key ordering', () => {
  it('reports every record of a partition from its lowest reported offset on, finished ones included', () => {
    const outcomes = [
      { partitionKey: 'orders-0', offset: 1, coordinates: 'orders-0@1', status: 'processed' as const },
      { partitionKey: 'orders-0', offset: 2, coordinates: 'orders-0@2', status: 'duplicate' as const },
      { partitionKey: 'orders-0', offset: 3, coordinates: 'orders-0@3', status: 'failed' as const },
      { partitionKey: 'orders-0', offset: 4, coordinates: 'orders-0@4', status: 'processed' as const },
      { partitionKey: 'orders-1', offset: 9, coordinates: 'orders-1@9', status: 'processed' as const },
    ];

    expect(toBatchResponse(outcomes).batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'orders-0', offset: 3 } },
      { itemIdentifier: { partition: 'orders-0', offset: 4 } },
    ]);
  });
});
