/**
 * The relay's queries on the Postgres outbox, one session at a time (what two sessions do at once is in
 * postgres-outbox-sessions.test.ts): claiming keys by their oldest head, a key's events in seq order,
 * deleting the published, quarantine and republish, the listings, the lag, idle keys (docs/postgres.md#outbox).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { OutboxWrites } from '../../../lambdas/postgres/outbox/outbox-writes.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import { ManualClock } from '../../support/clocks.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';
import { EMITTER, emissionsOf, emitCommitted, inTransaction, payment, shown } from './outbox-harness.js';

describeOnPostgres('the relay’s queries on the Postgres outbox', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let relay: OutboxRelayQueries;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    relay = new OutboxRelayQueries({ schema: db.schema, clock });
  });
  afterEach(() => db.drop());

  const key = (kafkaKey: string) => ({ consumer: EMITTER, topic: 'payments', kafkaKey });
  const emit = async (dedupKey: string, ...events: [string, string][]) => {
    await emitCommitted(
      db,
      dedupKey,
      events.map(([kafkaKey, value]) => payment(kafkaKey, value)),
      clock.nowMs(),
    );
    clock.advance(1_000);
  };
  const claimed = (limit: number) =>
    inTransaction(db.pool, async (client) =>
      (await relay.claimKeys(client, { limit })).map((claim) => claim.kafkaKey),
    );
  const pendingOf = (kafkaKey: string, limit = 100) =>
    inTransaction(db.pool, (client) => relay.pendingEvents(client, key(kafkaKey), { limit }));

  it('claims each key with pending events once, in key order, up to the limit', async () => {
    await emit('src-1', ['k2', 'a'], ['k2', 'c']);
    await emit('src-2', ['k1', 'b'], ['k2', 'd']);
    await emit('src-3', ['k3', 'e']);

    expect(await claimed(10)).toEqual(['k1', 'k2', 'k3']);
    expect(await claimed(2)).toEqual(['k1', 'k2']);
    expect(shown(await pendingOf('k2'))).toEqual(['k2 1 a', 'k2 2 c', 'k2 3 d']);
    expect(shown(await pendingOf('k2', 2))).toEqual(['k2 1 a', 'k2 2 c']);
  });

  it('goes round the keys from where the last claim stopped, and back to the start, each key once', async () => {
    await emit('src-1', ['k1', 'a'], ['k2', 'b'], ['k3', 'c'], ['k4', 'd'], ['k5', 'e']);
    const after = (kafkaKey: string, limit: number) =>
      inTransaction(db.pool, async (client) =>
        (await relay.claimKeys(client, { limit, after: key(kafkaKey) })).map((claim) => claim.kafkaKey),
      );

    expect(await after('k2', 2)).toEqual(['k3', 'k4']);
    expect(await after('k4', 2)).toEqual(['k5', 'k1']);
    expect(await after('k3', 10)).toEqual(['k4', 'k5', 'k1', 'k2', 'k3']);
    // A key that has nothing pending (any more) still marks the place.
    expect(await after('k0', 10)).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
    expect(await after('k9', 2)).toEqual(['k1', 'k2']);
  });

  it('deletes what was published: the key’s next event becomes its head, and a key with none is not claimed', async () => {
    await emit('src-1', ['k1', 'a']);
    await emit('src-2', ['k2', 'c']);
    await emit('src-3', ['k1', 'b']);
    expect(await claimed(10)).toEqual(['k1', 'k2']);
    const [first] = await pendingOf('k1');

    expect(await inTransaction(db.pool, (client) => relay.deletePublished(client, [first?.id ?? '']))).toBe(
      1,
    );
    // k1's head is now b.
    expect(await claimed(10)).toEqual(['k1', 'k2']);
    const rest = [...(await pendingOf('k1')), ...(await pendingOf('k2'))].map((event) => event.id);
    expect(await inTransaction(db.pool, (client) => relay.deletePublished(client, rest))).toBe(2);
    expect(await claimed(10)).toEqual([]);
    expect(await inTransaction(db.pool, (client) => relay.deletePublished(client, rest))).toBe(0);
  });

  it('gives back keys, text, bytes and headers as emitted: U+0000, a leading backslash, bytes', async () => {
    const awkward = ['a\u0000b', '\\0', '\\'];
    const bytes = new Uint8Array([0, 1, 255]);
    await emitCommitted(
      db,
      'src\u0000-1',
      [
        ...awkward.map((kafkaKey) => ({ topic: 'payments', key: kafkaKey, value: `v\u0000${kafkaKey}` })),
        { topic: 'payments', key: '\\', value: bytes, headers: { h: 'x\u0000y', '': '' } },
      ],
      clock.nowMs(),
    );

    expect((await claimed(10)).sort()).toEqual([...awkward].sort());
    const events = await pendingOf('\\');
    expect(events.map(({ value, headers, source, seq }) => ({ value, headers, source, seq }))).toEqual([
      { value: 'v\u0000\\', headers: {}, source: 'src\u0000-1', seq: 1 },
      { value: bytes, headers: { h: 'x\u0000y', '': '' }, source: 'src\u0000-1', seq: 2 },
    ]);
    expect(shown(await pendingOf('a\u0000b'))).toEqual(['a\u0000b 1 v\u0000a\u0000b']);
    expect(shown(await pendingOf('\\0'))).toEqual(['\\0 1 v\u0000\\0']);
  });

  it('quarantines an event out of its key’s way, and republishes it at the end of its key', async () => {
    await emit('src-1', ['k1', 'a'], ['k1', 'b'], ['k1', 'c']);
    const [a] = await pendingOf('k1');
    if (a === undefined) throw new Error('no event');

    const moved = await inTransaction(db.pool, async (client) => {
      await relay.claimKeys(client, { limit: 1 });
      return relay.quarantineEvent(client, a, 'topic-missing', 'UNKNOWN_TOPIC\u0000OR_PARTITION');
    });
    expect(moved).toBe(true);
    expect(await inTransaction(db.pool, (client) => relay.quarantineEvent(client, a, 'again', ''))).toBe(
      false,
    );
    expect(shown(await pendingOf('k1'))).toEqual(['k1 2 b', 'k1 3 c']);
    const [quarantined, ...others] = await relay.listQuarantined(db.pool, { limit: 10 });
    expect(others).toEqual([]);
    const { seq: _seq, ...event } = a;
    expect(quarantined).toEqual({
      ...event,
      reason: 'topic-missing',
      error: 'UNKNOWN_TOPIC\uFFFDOR_PARTITION',
      quarantinedAt: clock.nowMs(),
    });

    await emit('src-2', ['k1', 'd']);
    const republished = await inTransaction(db.pool, (client) => relay.republish(client, a.id));
    expect(republished).toEqual({ ...event, seq: 5, committedAt: clock.nowMs() });
    expect(shown(await pendingOf('k1'))).toEqual(['k1 2 b', 'k1 3 c', 'k1 4 d', 'k1 5 a']);
    expect(await relay.listQuarantined(db.pool, { limit: 10 })).toEqual([]);
    expect(await inTransaction(db.pool, (client) => relay.republish(client, a.id))).toBeUndefined();
  });

  it('lists pending events oldest first, by consumer, and measures the oldest one’s age', async () => {
    expect(await relay.oldestPendingAgeMs(db.pool)).toBeUndefined();
    const since = clock.nowMs();
    await emit('src-1', ['k1', 'a']);
    await inTransaction(db.pool, async (client) => {
      await new OutboxWrites(db.schema, 'refunds').write(
        client,
        'src-2',
        emissionsOf('src-2', [payment('k1', 'r')]),
        clock.nowMs(),
      );
    });
    clock.advance(500);

    expect(await relay.oldestPendingAgeMs(db.pool)).toBe(clock.nowMs() - since);
    expect(shown(await relay.listPending(db.pool, { limit: 10 }))).toEqual(['k1 1 a', 'k1 1 r']);
    expect(shown(await relay.listPending(db.pool, { limit: 1 }))).toEqual(['k1 1 a']);
    const refunds = await relay.listPending(db.pool, { consumer: 'refunds', limit: 10 });
    expect(refunds.map((event) => `${event.consumer} ${event.value}`)).toEqual(['refunds r']);
  });

  it('deletes idle key rows, never one with a pending event; the key starts again at seq 1', async () => {
    await emit('src-1', ['k1', 'a'], ['k2', 'b']);
    const ids = (await pendingOf('k1')).map((event) => event.id);
    await inTransaction(db.pool, (client) => relay.deletePublished(client, ids));

    const client = await db.pool.connect();
    try {
      expect(await relay.deleteIdleKeys(client, { limit: 10 })).toBe(1);
      expect(await relay.deleteIdleKeys(client, { limit: 10 })).toBe(0);
    } finally {
      client.release();
    }
    const { rows } = await db.pool.query('select kafka_key, last_seq from outbox_keys');
    expect(rows).toEqual([{ kafka_key: 'k2', last_seq: '1' }]);
    await emit('src-2', ['k1', 'c'], ['k2', 'd']);
    expect(shown(await relay.listPending(db.pool, { limit: 10 }))).toEqual(['k2 1 b', 'k1 1 c', 'k2 2 d']);
  });
});
