/**
 * The Postgres outbox between sessions, on Debian's Postgres only (PGlite is one session): seqs in commit
 * order per key, relays that never hold one key at once and never wait on emitters (nor emitters on them),
 * and LISTEN waking a relay at COMMIT (docs/postgres.md#outbox).
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CommitMember } from '../../../lambdas/core/inbox-store.js';
import { OutboxAppendListener } from '../../../lambdas/postgres/outbox/append-listener.js';
import { OutboxWrites } from '../../../lambdas/postgres/outbox/outbox-writes.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import type { PostgresInboxStore } from '../../../lambdas/postgres/postgres-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnDebianPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase, postgresStore } from '../../support/postgres-inbox.js';
import { deferred, EMITTER, emissionsOf, emitCommitted, payment, shown, waitFor } from './outbox-harness.js';

describeOnDebianPostgres('the Postgres outbox between sessions', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let store: PostgresInboxStore;
  let relay: OutboxRelayQueries;
  let writes: OutboxWrites;
  const clients: pg.PoolClient[] = [];
  beforeEach(async () => {
    db = await inboxDatabase(target.url(), { max: 5 });
    clock = new ManualClock();
    store = postgresStore(db, clock, { consumer: EMITTER });
    relay = new OutboxRelayQueries({ schema: db.schema, clock });
    writes = new OutboxWrites(db.schema, EMITTER);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
    await db.drop();
  });

  /** A session of the test's own, in a transaction: a relay's round, or an emitter's. */
  const session = async (): Promise<pg.PoolClient> => {
    const client = await db.pool.connect();
    clients.push(client);
    await client.query('BEGIN');
    return client;
  };
  const key = (kafkaKey: string) => ({ consumer: EMITTER, topic: 'payments', kafkaKey });
  const claims = async (client: pg.PoolClient, limit: number) =>
    (await relay.claimKeys(client, { limit })).map((claim) => claim.kafkaKey);
  const pendingOf = async (kafkaKey: string) =>
    shown(await relay.pendingEvents(db.pool, key(kafkaKey), { limit: 100 }));
  /** Sessions waiting for a lock on this schema's outbox_keys rows. */
  const waitingOnKeys = async () =>
    Number(
      (
        await db.pool.query<{ n: string }>(
          `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like $1`,
          [`%${db.schema}.outbox_keys%`],
        )
      ).rows[0]?.n,
    );
  const member = (dedupKey: string, kafkaKey?: string, sql?: CommitMember['sql']): CommitMember => ({
    entry: entry(dedupKey, 'hash-1', `orders-0@${dedupKey}`),
    writes: [],
    ...(sql ? { sql } : {}),
    ...(kafkaKey ? { emits: emissionsOf(dedupKey, [payment(kafkaKey, dedupKey)]) } : {}),
  });
  /** Fails, rather than hanging, when `promise` waits on a lock it should never wait on. */
  const promptly = <T>(promise: Promise<T>, what: string): Promise<T> =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited`)), 5_000)),
    ]);

  it('seqs follow commit order: the transaction that emits to a key second waits on its row, though it began first', async () => {
    const aInside = deferred();
    const aMayEmit = deferred();
    const a = store.commitGroup([
      member('a', 'acct', async () => {
        aInside.resolve();
        await aMayEmit.promise;
      }),
    ]);
    await aInside.promise;
    const bHolds = deferred();
    const bMayEnd = deferred();
    const b = store.commitGroup([
      member('b', 'acct'),
      member('b-hold', undefined, async () => {
        bHolds.resolve();
        await bMayEnd.promise;
      }),
    ]);
    await bHolds.promise;
    aMayEmit.resolve();
    await waitFor(async () => (await waitingOnKeys()) === 1, 'a to wait on the key row b holds');
    bMayEnd.resolve();

    expect((await b).map((result) => result.kind)).toEqual(['committed', 'committed']);
    expect((await a).map((result) => result.kind)).toEqual(['committed']);
    expect(await pendingOf('acct')).toEqual(['acct 1 b', 'acct 2 a']);
  });

  it('a transaction that rolls back gives its seqs up to the one waiting on the key', async () => {
    const first = await session();
    await writes.write(first, 'src-1', emissionsOf('src-1', [payment('acct', 'x'), payment('acct', 'y')]), 1);
    const second = await session();
    const secondWrite = writes.write(second, 'src-2', emissionsOf('src-2', [payment('acct', 'z')]), 2);
    await waitFor(async () => (await waitingOnKeys()) === 1, 'the second to wait on the key row');

    await first.query('ROLLBACK');
    await secondWrite;
    await second.query('COMMIT');

    expect(await pendingOf('acct')).toEqual(['acct 1 z']);
  });

  it('a relay holding a key: an emitter appends to it without waiting, another relay does not take it', async () => {
    await emitCommitted(db, 'src-1', [payment('k1', 'a')], 1);
    await emitCommitted(db, 'src-2', [payment('k2', 'x')], 2);
    const relayA = await session();
    expect(await claims(relayA, 1)).toEqual(['k1']);

    const appended = await promptly(store.commitGroup([member('b', 'k1')]), 'the emitter');
    expect(appended.map((result) => result.kind)).toEqual(['committed']);
    // k1's new event is committed and unlocked, but not k1's head: the key stays relay A's.
    const relayB = await session();
    expect(await promptly(claims(relayB, 10), 'relay B')).toEqual(['k2']);
    await relayB.query('COMMIT');

    const events = await relay.pendingEvents(relayA, key('k1'), { limit: 10 });
    expect(shown(events)).toEqual(['k1 1 a', 'k1 2 b']);
    await relay.deletePublished(
      relayA,
      events.map((event) => event.id),
    );
    await relayA.query('COMMIT');
    const relayC = await session();
    expect(await claims(relayC, 10)).toEqual(['k2']);
  });

  it('an emitter holding a key’s row hides neither the key nor its committed events from a relay', async () => {
    await emitCommitted(db, 'src-1', [payment('k1', 'a')], 1);
    const emitter = await session();
    await writes.write(emitter, 'src-2', emissionsOf('src-2', [payment('k1', 'b')]), 2);

    const relayA = await session();
    expect(await promptly(claims(relayA, 10), 'the relay')).toEqual(['k1']);
    expect(shown(await relay.pendingEvents(relayA, key('k1'), { limit: 10 }))).toEqual(['k1 1 a']);
    await emitter.query('COMMIT');
    expect(shown(await relay.pendingEvents(relayA, key('k1'), { limit: 10 }))).toEqual(['k1 1 a', 'k1 2 b']);
  });

  it('two relays claiming at once never get one key twice, and leave none out', async () => {
    const kafkaKeys = Array.from({ length: 30 }, (_, index) => `key-${index}`);
    await emitCommitted(
      db,
      'src-1',
      kafkaKeys.map((kafkaKey) => payment(kafkaKey, 'v')),
      1,
    );
    const [a, b] = await Promise.all([session(), session()]);
    for (let round = 0; round < 5; round++) {
      if (round > 0) await Promise.all([a.query('BEGIN'), b.query('BEGIN')]);
      const [ofA, ofB] = await Promise.all([claims(a, 20), claims(b, 20)]);
      expect(ofA.filter((claimed) => ofB.includes(claimed))).toEqual([]);
      expect([...ofA, ...ofB].sort()).toEqual([...kafkaKeys].sort());
      await Promise.all([a.query('COMMIT'), b.query('COMMIT')]);
    }
  });

  it('LISTEN wakes a relay at COMMIT, not before, and not for a rollback; one that came unwaited is kept', async () => {
    const listenClient = new pg.Client({ connectionString: target.url() });
    await listenClient.connect();
    try {
      const listener = await OutboxAppendListener.listen(listenClient, db.schema);
      const emitter = await session();
      await writes.write(emitter, 'src-1', emissionsOf('src-1', [payment('k1', 'a')]), 1);
      await emitter.query(writes.notify);
      expect(await listener.waitForAppend(300)).toBe('timeout');
      await emitter.query('COMMIT');
      expect(await listener.waitForAppend(5_000)).toBe('appended');

      await emitter.query('BEGIN');
      await writes.write(emitter, 'src-2', emissionsOf('src-2', [payment('k1', 'b')]), 2);
      await emitter.query(writes.notify);
      await emitter.query('ROLLBACK');
      expect(await listener.waitForAppend(300)).toBe('timeout');

      // Through the store, while nobody waits: the next wait returns at once.
      await store.commitGroup([member('c', 'k1')]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await listener.waitForAppend(1)).toBe('appended');
      // A record that emits nothing notifies nobody.
      await store.commitGroup([member('d')]);
      expect(await listener.waitForAppend(300)).toBe('timeout');

      await listener.stop();
      await expect(listener.waitForAppend(10)).rejects.toThrow(/stopped/);
    } finally {
      await listenClient.end();
    }
  });

  it('with POSTGRES_OUTBOX_NOTIFY=off an emitting commit notifies nobody: the relay finds it by its poll', async () => {
    const listenClient = new pg.Client({ connectionString: target.url() });
    await listenClient.connect();
    try {
      const listener = await OutboxAppendListener.listen(listenClient, db.schema);
      const quiet = postgresStore(db, clock, { consumer: EMITTER, notifyRelay: false });
      await quiet.commitGroup([member('quiet', 'k1')]);
      expect(await listener.waitForAppend(300)).toBe('timeout');
      expect((await pendingOf('k1')).length).toBe(1);
      await listener.stop();
    } finally {
      await listenClient.end();
    }
  });

  it('a wait rejects once the listening connection ended: the relay listens again on another', async () => {
    const listenClient = new pg.Client({ connectionString: target.url() });
    await listenClient.connect();
    const listener = await OutboxAppendListener.listen(listenClient, db.schema);
    const waiting = listener.waitForAppend(60_000);

    await listenClient.end();

    await expect(promptly(waiting, 'the wait')).rejects.toThrow(/ended/);
    await expect(listener.waitForAppend(10)).rejects.toThrow(/ended/);
  });
});
