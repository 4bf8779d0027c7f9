import { describe, expect, it } from 'vitest';
import type { EffectWrite } from '../../../lambdas/core/effect.js';
import {
  isOutboxAppend,
  outboxAppendBytes,
  outboxAppends,
  outboxBacklogMessage,
  outboxEmissions,
} from '../../../lambdas/core/outbox-appends.js';
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import { OUTBOX_LIMITS, type OutboxEvent, outboxQueueKey } from '../../../lambdas/core/outbox-rows.js';

const TARGET = { tableName: 'outbox', consumer: 'orders' };
const NOW = 1_700_000_000_000;

function appendsOf(events: readonly OutboxEvent[]) {
  const result = outboxAppends(TARGET, 'evt-1', events, NOW);
  if (!result.ok) throw new Error(result.problem);
  return result.writes.map((write) => {
    if (!('Update' in write)) throw new Error('an append is an Update');
    return write.Update;
  });
}

describe('outboxAppends', () => {
  it("appends one queue row per topic and key, each key's events in the effect's order, ids by position", () => {
    const updates = appendsOf([
      { topic: 'payments', key: 'acct-1', value: 'a' },
      { topic: 'payments', key: 'acct-2', value: 'b' },
      { topic: 'payments', key: 'acct-1', value: new Uint8Array([1, 2]), headers: { type: 'Captured' } },
      { topic: 'audit', key: 'acct-1', value: 'd' },
    ]);
    expect(updates.map((update) => update.Key.pk)).toEqual([
      outboxQueueKey('orders', 'payments', 'acct-1'),
      outboxQueueKey('orders', 'payments', 'acct-2'),
      outboxQueueKey('orders', 'audit', 'acct-1'),
    ]);
    const first = updates[0]?.ExpressionAttributeValues ?? {};
    expect(first[':events']).toEqual([
      {
        id: outboxEventId('orders', 'evt-1', 0),
        value: 'a',
        headers: {},
        committed_at: NOW,
        source: 'evt-1',
      },
      {
        id: outboxEventId('orders', 'evt-1', 2),
        value: new Uint8Array([1, 2]),
        headers: { type: 'Captured' },
        committed_at: NOW,
        source: 'evt-1',
      },
    ]);
    // What pending_bytes counts: key + value + headers of both events.
    expect(first[':bytes']).toBe(
      'acct-1'.length + 1 + ('acct-1'.length + 2 + 'type'.length + 'Captured'.length),
    );
    expect(first[':room']).toBe(OUTBOX_LIMITS.pendingBytes - (first[':bytes'] as number));
    expect(updates[0]?.UpdateExpression).toContain('list_append(if_not_exists(#events, :empty), :events)');
  });

  it('marks its writes as appends with their size, and no other write', () => {
    const result = outboxAppends(TARGET, 'evt-1', [{ topic: 't', key: 'k', value: 'v' }], NOW);
    if (!result.ok) throw new Error(result.problem);
    const [append] = result.writes as EffectWrite[];
    expect(append && isOutboxAppend(append)).toBe(true);
    expect(append && outboxAppendBytes(append)).toBeGreaterThan(3);
    expect(append && outboxBacklogMessage(append)).toContain('t key "k"');
    const copy = structuredClone(append) as EffectWrite;
    expect(isOutboxAppend(copy)).toBe(false);
  });

  it('hashes a key too long for a partition key, and keeps it whole in the row', () => {
    const key = 'k'.repeat(OUTBOX_LIMITS.keyBytesInPk + 1);
    const [update] = appendsOf([{ topic: 't', key, value: 'v' }]);
    expect(update?.Key.pk).toMatch(/^queue#orders#t#sha256:[0-9a-f]{64}$/);
    expect(update?.ExpressionAttributeValues?.[':key']).toBe(key);
  });

  it.each([
    [{ topic: 'bad topic', key: 'k', value: 'v' }, /is not a Kafka topic name/],
    [{ topic: 't', key: 7, value: 'v' }, /key must be a string/],
    [{ topic: 't', key: 'k', value: { amount: 1 } }, /value must be a string or bytes/],
    [
      { topic: 't', key: 'k', value: 'v', headers: { event_id: 'mine' } },
      /header event_id is the outbox's own/,
    ],
    [{ topic: 't', key: 'k', value: 'v', headers: { n: 1 } }, /header "n" must be a string/],
    [{ topic: 't', key: 'k', value: 'x'.repeat(OUTBOX_LIMITS.eventBytes) }, /an event may hold/],
  ])('refuses %o with a reason that names the event', (event, problem) => {
    const result = outboxAppends(
      TARGET,
      'evt-1',
      [{ topic: 't', key: 'k', value: 'ok' }, event as never],
      NOW,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toMatch(/^event 1: /);
      expect(result.problem).toMatch(problem);
    }
  });

  it("refuses events whose sum for one key could never fit the key's queue row", () => {
    const big = 'x'.repeat(OUTBOX_LIMITS.eventBytes - 10);
    const result = outboxAppends(
      TARGET,
      'evt-1',
      [
        { topic: 't', key: 'k', value: big },
        { topic: 't', key: 'k', value: big },
      ],
      NOW,
    );
    expect(result).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/unpublished events may hold/),
    });
  });
});

describe("the emitting record's traceparent on its events", () => {
  const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('rides on each event without counting toward its bytes, and an event naming its own in any case keeps it', () => {
    const events: OutboxEvent[] = [
      { topic: 'payments', key: 'acct-1', value: 'a', headers: { type: 'Captured' } },
      { topic: 'payments', key: 'acct-1', value: 'b', headers: { Traceparent: 'theirs' } },
    ];
    const plain = outboxEmissions('orders', 'evt-1', events);
    const traced = outboxEmissions('orders', 'evt-1', events, TRACEPARENT);
    if (!plain.ok || !traced.ok) throw new Error('the events were refused');
    expect(traced.emissions.map((emission) => emission.headers)).toEqual([
      { type: 'Captured', traceparent: TRACEPARENT },
      { Traceparent: 'theirs' },
    ]);
    expect(traced.emissions.map((emission) => emission.bytes)).toEqual(plain.emissions.map((e) => e.bytes));
    expect(traced.emissions.map((emission) => emission.id)).toEqual(plain.emissions.map((e) => e.id));
  });

  it("never makes a key's events too large: what fits without it fits with it", () => {
    // Two events of one key filling its pending bytes exactly (each under the one-event limit).
    const value = 'x'.repeat(OUTBOX_LIMITS.pendingBytes / 2 - Buffer.byteLength('acct-1'));
    const events: OutboxEvent[] = [
      { topic: 'payments', key: 'acct-1', value },
      { topic: 'payments', key: 'acct-1', value },
    ];
    expect(outboxAppends(TARGET, 'evt-1', events, NOW).ok).toBe(true);
    expect(outboxAppends(TARGET, 'evt-1', events, NOW, TRACEPARENT).ok).toBe(true);
  });
});
