/**
 * One round of the Postgres relay (lambdas/postgres/outbox/relay-round.ts) against the in-process broker:
 * keys published in seq order and deleted, poison events quarantined while their key goes on, a send that
 * fails for now leaving the rest pending, the request cut by bytes, and `more` when events wait beyond
 * the round (docs/postgres.md#the-relay).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { OUTBOX_LIMITS } from '../../../lambdas/core/outbox-rows.js';
import { TransientPublishError } from '../../../lambdas/outbox-relay/publisher.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import {
  EVENTS_PER_KEY,
  KEY_SEND_RESERVE_MS,
  type RoundDeps,
  relayRound,
} from '../../../lambdas/postgres/outbox/relay-round.js';
import { ManualClock } from '../../support/clocks.js';
import { FakePublisher } from '../../support/fake-publisher.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';
import { EMITTER, emitCommitted, payment, shown } from './outbox-harness.js';

describeOnPostgres('a round of the Postgres relay', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let queries: OutboxRelayQueries;
  let broker: FakePublisher;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    queries = new OutboxRelayQueries({ schema: db.schema, clock });
    broker = new FakePublisher();
  });
  afterEach(() => db.drop());

  const emit = async (dedupKey: string, ...events: [string, string][]) => {
    await emitCommitted(
      db,
      dedupKey,
      events.map(([kafkaKey, value]) => payment(kafkaKey, value)),
      clock.nowMs(),
    );
    clock.advance(1_000);
  };
  const round = async (overrides: Partial<RoundDeps> = {}) => {
    const client = await db.pool.connect();
    try {
      return await relayRound(client, {
        queries,
        publisher: broker,
        keysPerRound: 10,
        nowMs: () => clock.nowMs(),
        remainingMs: () => 60_000,
        ...overrides,
      });
    } finally {
      client.release();
    }
  };
  const pending = async () => shown(await queries.listPending(db.pool, { limit: 1_000 }));
  const ackedValues = () => broker.acked.map((message) => `${message.key} ${String(message.value)}`);

  it('publishes each key’s events in seq order, one request per key, and deletes them', async () => {
    await emit('src-1', ['k1', 'a'], ['k2', 'x']);
    await emit('src-2', ['k1', 'b']);
    await emit('src-3', ['k2', 'y'], ['k1', 'c']);

    const report = await round();

    // Within a key, seq order; between keys (both heads committed at once) none is promised. (sort is stable)
    expect(ackedValues().sort((a, b) => a.slice(0, 2).localeCompare(b.slice(0, 2)))).toEqual([
      'k1 a',
      'k1 b',
      'k1 c',
      'k2 x',
      'k2 y',
    ]);
    expect(broker.calls.map((call) => call.messages.length).sort()).toEqual([2, 3]);
    expect(broker.acked.every((message) => /^[0-9a-f-]{36}$/.test(message.headers.event_id ?? ''))).toBe(
      true,
    );
    expect(report).toMatchObject({ keys: 2, published: 5, quarantined: 0, more: false });
    expect(report.publishFailures).toEqual([]);
    // The oldest published event committed at the start, three emits (3 s) before the round.
    expect(report.publishLagMs).toBe(3_000);
    expect(await pending()).toEqual([]);
  });

  it('quarantines the event Kafka refuses for good, and the key’s later events are published', async () => {
    await emit('src-1', ['k1', 'a'], ['k1', 'poison'], ['k1', 'c']);
    broker.answer = (_topic, messages) =>
      messages.some((message) => message.value === 'poison') ? 'message-too-large' : 'published';

    const report = await round();

    expect(ackedValues()).toEqual(['k1 a', 'k1 c']);
    expect(report).toMatchObject({ published: 2, quarantined: 1 });
    expect(await pending()).toEqual([]);
    const quarantined = await queries.listQuarantined(db.pool, { limit: 10 });
    expect(quarantined.map((event) => [String(event.value), event.reason])).toEqual([
      ['poison', 'message-too-large'],
    ]);
  });

  it('stops at a send that may pass later: what was acknowledged is deleted, the rest stays pending, later keys untouched', async () => {
    await emit('src-1', ['k1', 'a'], ['k1', 'b']);
    await emit('src-2', ['k2', 'x']);
    await emit('src-3', ['k1', 'c']);
    // The batch send fails as invalid, so the relay sends one by one; the second fails for now.
    broker.answer = (_topic, messages) =>
      messages.length > 1 ? 'invalid-record' : messages[0]?.value === 'b' ? 'transient' : 'published';

    const report = await round();

    expect(report.publishFailures).toHaveLength(1);
    expect(report.publishFailures[0]).toBeInstanceOf(TransientPublishError);
    expect(report).toMatchObject({ published: 1, quarantined: 0, more: false });
    expect(ackedValues()).toEqual(['k1 a']);
    expect(await pending()).toEqual(['k1 2 b', 'k2 1 x', 'k1 3 c']);

    broker.answer = () => 'published';
    await round();
    expect(ackedValues()).toEqual(['k1 a', 'k1 b', 'k1 c', 'k2 x']);
  });

  it('a topic that fails for now is skipped for the rest of the round, and holds no other topic’s keys', async () => {
    // The oldest head is on a topic the broker cannot take for now (a partition offline, no write grant).
    await emitCommitted(db, 'src-1', [{ topic: 'stuck', key: 'k1', value: 'a' }], clock.nowMs());
    clock.advance(1_000);
    await emitCommitted(db, 'src-2', [{ topic: 'stuck', key: 'k2', value: 'b' }], clock.nowMs());
    clock.advance(1_000);
    await emit('src-3', ['k3', 'c']);
    broker.answer = (topic) => (topic === 'stuck' ? 'transient' : 'published');

    const report = await round();

    expect(ackedValues()).toEqual(['k3 c']);
    // One failed send for the topic, not one per key.
    expect(broker.calls.map((call) => call.topic)).toEqual(['stuck', 'payments']);
    expect(report).toMatchObject({ keys: 3, published: 1, more: false });
    expect(report.publishFailures).toHaveLength(1);
    expect((await queries.listPending(db.pool, { limit: 10 })).map((event) => event.topic)).toEqual([
      'stuck',
      'stuck',
    ]);
  });

  it('sends a key’s backlog in requests within the outbox’s byte bound, and says more is waiting', async () => {
    const big = 'v'.repeat(100_000);
    const perRequest = Math.floor(OUTBOX_LIMITS.pendingBytes / 100_050);
    await emit('src-1', ['k1', `1${big}`], ['k1', `2${big}`], ['k1', `3${big}`], ['k1', `4${big}`]);

    const first = await round();

    expect(broker.calls.map((call) => call.messages.length)).toEqual([perRequest]);
    expect(first.more).toBe(true);
    await round();
    expect(broker.acked.map((message) => String(message.value).slice(0, 1))).toEqual(['1', '2', '3', '4']);
  });

  it('says more is waiting when it claimed as many keys as it may, or left a key’s events behind', async () => {
    await emit('src-1', ['k1', 'a'], ['k2', 'b'], ['k3', 'c']);
    expect((await round({ keysPerRound: 2 })).more).toBe(true);
    expect((await round({ keysPerRound: 2 })).more).toBe(false);

    await emit(
      'src-2',
      ...Array.from({ length: EVENTS_PER_KEY + 1 }, (_, index): [string, string] => ['k9', `e${index}`]),
    );
    expect(await round()).toMatchObject({ published: EVENTS_PER_KEY, more: true });
    expect(await round()).toMatchObject({ published: 1, more: false });
  });

  it('starts no send with less time left than a send needs, leaving the keys for the next invocation', async () => {
    await emit('src-1', ['k1', 'a']);

    const report = await round({ remainingMs: () => KEY_SEND_RESERVE_MS - 1 });

    expect(report).toMatchObject({ keys: 1, published: 0, more: true });
    expect(broker.calls).toEqual([]);
    expect(await pending()).toEqual(['k1 1 a']);
  });

  it('keeps every event pending when the round’s transaction is cut before COMMIT', async () => {
    await emit('src-1', ['k1', 'a']);
    const client = await db.pool.connect();
    let failedCommit = false;
    const cut = new Proxy(client, {
      get(targetClient, property, receiver) {
        if (property !== 'query') return Reflect.get(targetClient, property, receiver);
        return (text: string, values?: unknown[]) => {
          if (text === 'COMMIT') {
            failedCommit = true;
            return Promise.reject(new Error('connection lost at COMMIT'));
          }
          return targetClient.query(text, values);
        };
      },
    });
    try {
      await expect(
        relayRound(cut, {
          queries,
          publisher: broker,
          keysPerRound: 10,
          nowMs: () => clock.nowMs(),
          remainingMs: () => 60_000,
        }),
      ).rejects.toThrow('connection lost at COMMIT');
    } finally {
      // As withPooledClient does after a throw: the connection, mid-transaction, is destroyed.
      client.release(true);
    }
    expect(failedCommit).toBe(true);
    // Published, yet pending: the next round publishes it again, with the same event_id.
    expect(ackedValues()).toEqual(['k1 a']);
    expect(await pending()).toEqual(['k1 1 a']);
    await round();
    expect(broker.ackedIds()[0]).toBe(broker.ackedIds()[1]);
  });

  it(`answers ${EMITTER}’s keys only once per round even with several events per source`, async () => {
    await emit('src-1', ['k1', 'a'], ['k1', 'b'], ['k1', 'c']);
    expect(await round()).toMatchObject({ keys: 1, published: 3 });
    expect(broker.calls).toHaveLength(1);
  });
});
