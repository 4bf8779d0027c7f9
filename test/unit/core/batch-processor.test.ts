import { describe, expect, it } from 'vitest';
import { type BatchProcessorOptions, processBatch } from '../../../lambdas/core/batch-processor.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import { EffectRejectedError, InboxStoreError } from '../../../lambdas/core/errors.js';
import { mapConcurrently } from '../../../lambdas/core/map-concurrently.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';
import { trackingEffect } from '../../support/tracking-effect.js';

const transact: Effect = () => ({ kind: 'transact', writes: [] });

function setup(overrides: Partial<BatchProcessorOptions> = {}) {
  const clock = new ManualClock();
  const store = new MemoryInboxStore(clock);
  const options = processorOptions(store, clock, { effect: transact, ...overrides });
  const run = (specs: RecordSpec[]) => processBatch(decodeEvent(kafkaEvent(specs)), options);
  return { clock, store, run };
}

const rec = (
  offset: number,
  eventId: string,
  partition = 0,
  value: unknown = { n: eventId },
): RecordSpec => ({
  offset,
  partition,
  headers: { event_id: eventId },
  value,
});

describe('processBatch', () => {
  it('gives every record exactly one outcome, in partition then offset order', async () => {
    const { run } = setup();

    const outcomes = await run([rec(3, 'c', 1), rec(1, 'a'), rec(2, 'b'), rec(4, 'd', 1)]);

    expect(outcomes.map((o) => [o.coordinates, o.status])).toEqual([
      ['orders-1@3', 'processed'],
      ['orders-1@4', 'processed'],
      ['orders-0@1', 'processed'],
      ['orders-0@2', 'processed'],
    ]);
  });

  it('runs the records of one partition one after another, in offset order', async () => {
    const tracking = trackingEffect(2, ({ dedupKey }) => dedupKey);
    const { run } = setup({ effect: tracking.effect });

    await run([rec(5, 'a'), rec(6, 'b'), rec(7, 'c'), rec(8, 'd')]);

    expect(tracking.started).toEqual(['a', 'b', 'c', 'd']);
    expect(tracking.maxRunning()).toBe(1);
  });

  it('runs partitions concurrently but never more than the configured bound', async () => {
    const tracking = trackingEffect();
    const { run } = setup({ partitionConcurrency: 2, effect: tracking.effect });

    await run([0, 1, 2, 3, 4].map((p) => rec(1, `e${p}`, p)));

    expect(tracking.maxRunning()).toBe(2);
  });

  it('does not start the rest of a partition after a reported record, and reports them all', async () => {
    const { store, run } = setup();
    store.failOn = (operation, key) =>
      operation === 'commit' && key === 'b' ? new InboxStoreError('throttled') : undefined;

    const outcomes = await run([rec(1, 'a'), rec(2, 'b'), rec(3, 'c'), rec(4, 'd'), rec(9, 'x', 1)]);

    expect(outcomes.map((o) => [o.coordinates, o.status])).toEqual([
      ['orders-0@1', 'processed'],
      ['orders-0@2', 'failed'],
      ['orders-0@3', 'blocked'],
      ['orders-0@4', 'blocked'],
      ['orders-1@9', 'processed'],
    ]);
    expect(store.calls.map((c) => c.key)).not.toContain('c');
  });

  it('acks later copies of a key in one batch as duplicates without touching the store again', async () => {
    const { store, run } = setup();

    const outcomes = await run([rec(1, 'k'), rec(2, 'k'), rec(7, 'k', 1), rec(8, 'j', 1)]);

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'duplicate', 'duplicate', 'processed']);
    expect(store.calls.filter((c) => c.key === 'k')).toHaveLength(1);
  });

  it('reports later copies of a key when its first copy was reported', async () => {
    const { store, run } = setup();
    store.failOn = (operation, key) =>
      operation === 'commit' && key === 'k' ? new InboxStoreError('outage') : undefined;

    const outcomes = await run([rec(1, 'k'), rec(7, 'k', 1), rec(8, 'j', 1)]);

    expect(outcomes.map((o) => [o.coordinates, o.status])).toEqual([
      ['orders-0@1', 'failed'],
      ['orders-1@7', 'in-flight'],
      ['orders-1@8', 'blocked'],
    ]);
  });

  it('quarantines a later copy with another payload as a conflict', async () => {
    const { store, run } = setup();

    const outcomes = await run([rec(1, 'k', 0, { v: 1 }), rec(2, 'k', 0, { v: 2 })]);

    expect(outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['processed', undefined],
      ['quarantined', 'payload-conflict'],
    ]);
    expect(store.quarantined.has('orders-0@2')).toBe(true);
  });

  it('finishes without deadlock when two partitions hold the same keys in opposite order', async () => {
    const { run } = setup();

    const outcomes = await run([rec(1, 'x', 0), rec(2, 'y', 0), rec(1, 'y', 1), rec(2, 'x', 1)]);

    expect(outcomes.filter((o) => o.status === 'processed')).toHaveLength(2);
    expect(outcomes.filter((o) => o.status === 'duplicate')).toHaveLength(2);
  });

  it('reports a record as failed, never throws, when the effect planner throws', async () => {
    const { run } = setup({
      effect: () => {
        throw new TypeError('bug in the effect');
      },
    });

    const outcomes = await run([rec(1, 'a'), rec(2, 'b')]);

    expect(outcomes).toMatchObject([
      { status: 'failed', reason: 'TypeError', detail: 'bug in the effect' },
      { status: 'blocked' },
    ]);
  });

  it('quarantines a record whose effect throws EffectRejectedError, from however deep, and goes on', async () => {
    const chargeCard = (): never => {
      throw new EffectRejectedError('card-declined', 'the card was declined');
    };
    const { store, run } = setup({
      effect: ({ dedupKey }) => (dedupKey === 'a' ? chargeCard() : { kind: 'transact', writes: [] }),
    });

    const outcomes = await run([rec(1, 'a'), rec(2, 'b')]);

    expect(outcomes).toMatchObject([
      { status: 'quarantined', reason: 'card-declined', detail: 'the card was declined' },
      { status: 'processed' },
    ]);
    expect(store.calls.filter((call) => call.operation !== 'quarantine').map((call) => call.key)).toEqual([
      'b',
    ]);
  });

  it("quarantines a rejection thrown by another copy of the package's EffectRejectedError (two copies in one bundle)", async () => {
    // What a second copy of errors.ts constructs: another class, the same global brand.
    class CopiedEffectRejectedError extends Error {
      readonly reason = 'card-declined';
      constructor(message: string) {
        super(message);
        Object.defineProperty(this, Symbol.for('msk-inbox.EffectRejectedError'), { value: true });
      }
    }
    const { run } = setup({
      effect: ({ dedupKey }) => {
        if (dedupKey === 'a') throw new CopiedEffectRejectedError('declined by the other copy');
        return { kind: 'transact', writes: [] };
      },
    });

    const outcomes = await run([rec(1, 'a'), rec(2, 'b')]);

    expect(outcomes).toMatchObject([
      { status: 'quarantined', reason: 'card-declined', detail: 'declined by the other copy' },
      { status: 'processed' },
    ]);
  });

  it('reports a record as failed when its quarantine row cannot be written', async () => {
    const { store, run } = setup();
    store.failOn = (operation) => (operation === 'quarantine' ? new InboxStoreError('outage') : undefined);

    const outcomes = await run([{ offset: 1, value: 'no id here' }, rec(2, 'b')]);

    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'blocked']);
  });

  it('quarantines a record whose effect has more writes than one transaction holds, without a commit', async () => {
    const write = { Put: { TableName: 't', Item: { pk: 'x' } } };
    const { store, run } = setup({ effect: () => ({ kind: 'transact', writes: Array(100).fill(write) }) });

    const outcomes = await run([rec(1, 'a')]);

    expect(outcomes).toMatchObject([{ status: 'quarantined', reason: 'effect-too-large' }]);
    expect(store.calls.map((call) => call.operation)).toEqual(['quarantine']);
  });

  it('defers every record once the remaining time is under the margin', async () => {
    let remaining = 10_000;
    const { run } = setup({
      partitionConcurrency: 1,
      remainingTimeMs: () => remaining,
      effect: () => {
        remaining -= 5_000;
        return { kind: 'transact', writes: [] };
      },
    });

    const outcomes = await run([rec(1, 'a'), rec(2, 'b'), rec(3, 'c'), rec(4, 'd', 1)]);

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed', 'deferred', 'deferred']);
  });

  it('skips a record the consumer does not handle, with no store call', async () => {
    const { store, run } = setup({ skipRecord: (record) => (record.offset === 1 ? 'not mine' : undefined) });

    const outcomes = await run([rec(1, 'a'), rec(2, 'b')]);

    expect(outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['skipped', 'not mine'],
      ['processed', undefined],
    ]);
    expect(store.calls.map((c) => c.key)).toEqual(['b']);
  });

  it('releases the lease when a side-effect fails, and reports the record', async () => {
    const { store, run } = setup({
      effect: () => ({
        kind: 'call',
        run: async () => {
          throw new Error('gateway down');
        },
      }),
    });

    const outcomes = await run([rec(1, 'a')]);

    expect(outcomes).toMatchObject([{ status: 'failed', reason: 'effect-error', detail: 'gateway down' }]);
    expect(store.calls.map((c) => c.operation)).toEqual(['claim', 'release']);
    expect(store.rows.has('a')).toBe(false);
  });
});

describe('mapConcurrently', () => {
  it('keeps the input order of results', async () => {
    const results = await mapConcurrently([30, 10, 20], 3, async (ms) => {
      await new Promise((resolve) => setTimeout(resolve, ms / 10));
      return ms;
    });

    expect(results).toEqual([30, 10, 20]);
  });
});
