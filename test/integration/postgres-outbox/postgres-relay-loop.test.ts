/**
 * The Postgres relay's invocation loop (lambdas/postgres/outbox/relay-loop.ts) against the in-process
 * broker: with OUTBOX_WAKE=poll it finds events by polling (PGlite and Debian's Postgres); with notify it
 * wakes at an emitter's COMMIT though its poll interval is a minute, and two relays running at once over
 * the same keys publish every event once, each key in seq order (Debian's Postgres: concurrent sessions).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectionPool } from '../../../lambdas/postgres/connection.js';
import { OutboxWrites } from '../../../lambdas/postgres/outbox/outbox-writes.js';
import {
  type RelayLoopDeps,
  ROUND_START_RESERVE_MS,
  runRelay,
} from '../../../lambdas/postgres/outbox/relay-loop.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import type { PostgresRelaySettings } from '../../../lambdas/postgres/outbox/relay-settings.js';
import { readPostgresSettings } from '../../../lambdas/postgres/postgres-settings.js';
import { FakePublisher } from '../../support/fake-publisher.js';
import { describeOnDebianPostgres, describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';
import { EMITTER, emissionsOf, emitCommitted, payment } from './outbox-harness.js';

/** Deps for a loop that runs about `runMs` of real time. */
function loopDeps(
  db: FreshSchema,
  broker: FakePublisher,
  settings: Partial<PostgresRelaySettings>,
  runMs: number,
): RelayLoopDeps & { readonly logged: string[] } {
  const end = Date.now() + runMs;
  const logged: string[] = [];
  return {
    connect: () => db.pool.connect(),
    schema: db.schema,
    queries: new OutboxRelayQueries({ schema: db.schema }),
    publisher: broker,
    settings: { wake: 'poll', pollIntervalMs: 50, keysPerRound: 10, ...settings },
    nowMs: () => Date.now(),
    remainingMs: () => ROUND_START_RESERVE_MS + (end - Date.now()),
    log: {
      warn: (message) => logged.push(message),
      error: (message) => logged.push(message),
    },
    logged,
  };
}

const emit = (db: FreshSchema, dedupKey: string, ...events: [string, string][]) =>
  emitCommitted(
    db,
    dedupKey,
    events.map(([kafkaKey, value]) => payment(kafkaKey, value)),
    Date.now(),
  );

describeOnPostgres('the Postgres relay’s loop, polling', (target) => {
  let db: FreshSchema;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
  });
  afterEach(() => db.drop());

  it('publishes what was pending, then what commits while it runs, and leaves no key row behind', async () => {
    await emit(db, 'src-1', ['k1', 'a'], ['k2', 'b']);
    const broker = new FakePublisher();
    const deps = loopDeps(db, broker, { wake: 'poll' }, 900);
    const running = runRelay(deps);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await emit(db, 'src-2', ['k1', 'c']);

    const summary = await running;

    expect(broker.acked.map((message) => `${message.key} ${String(message.value)}`).sort()).toEqual([
      'k1 a',
      'k1 c',
      'k2 b',
    ]);
    expect(summary).toMatchObject({ published: 3, notified: 0, storeFailures: 0, publishFailures: 0 });
    // It kept polling: the round that found the pending events and at least one after the second commit (how
    // many more fit in the 900 ms depends on the machine's load, so only the floor is asserted).
    expect(summary.polled).toBeGreaterThanOrEqual(2);
    expect(summary.oldestPendingAgeMs).toBeUndefined();
    expect(summary.idleKeysDeleted).toBe(2);
    expect(deps.logged).toEqual([]);
  });

  it('counts a failed send, keeps its events, and publishes them on a later round of the same run', async () => {
    await emit(db, 'src-1', ['k1', 'a']);
    const broker = new FakePublisher();
    let failures = 2;
    broker.answer = () => (failures-- > 0 ? 'transient' : 'published');

    const summary = await runRelay(loopDeps(db, broker, { wake: 'poll' }, 500));

    expect(summary).toMatchObject({ published: 1, publishFailures: 2 });
    expect(broker.ackedIds()).toHaveLength(1);
  });

  it('runs one round even with no time to spare, and reports the age of what it could not publish', async () => {
    await emit(db, 'src-1', ['k1', 'a']);
    const broker = new FakePublisher();
    broker.answer = () => 'transient';

    const summary = await runRelay(loopDeps(db, broker, { wake: 'poll' }, -1));

    expect(summary.rounds).toBe(1);
    expect(summary.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
  });
});

describeOnDebianPostgres('the Postgres relay’s loop, woken by NOTIFY', (target) => {
  let db: FreshSchema;
  beforeEach(async () => {
    db = await inboxDatabase(target.url(), { max: 6 });
  });
  afterEach(() => db.drop());

  /** An emit whose transaction notifies at COMMIT, as the store's (member-transaction.ts). */
  const emitNotifying = async (dedupKey: string, ...events: [string, string][]) => {
    const client = await db.pool.connect();
    try {
      const writes = new OutboxWrites(db.schema, EMITTER);
      await client.query('BEGIN');
      await writes.write(
        client,
        dedupKey,
        emissionsOf(
          dedupKey,
          events.map(([kafkaKey, value]) => payment(kafkaKey, value)),
        ),
        Date.now(),
      );
      await client.query(writes.notify);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };

  it('wakes at an emitter’s COMMIT though its poll interval is a minute, and gives its listening connection back at the end', async () => {
    const broker = new FakePublisher();
    const deps = loopDeps(db, broker, { wake: 'notify', pollIntervalMs: 60_000 }, 1_500);
    const running = runRelay(deps);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const committedAt = Date.now();
    await emitNotifying('src-1', ['k1', 'a']);
    while (broker.acked.length === 0 && Date.now() < committedAt + 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const publishedAfterMs = Date.now() - committedAt;

    const summary = await running;

    expect(broker.acked.map((message) => String(message.value))).toEqual(['a']);
    expect(publishedAfterMs).toBeLessThan(2_000);
    expect(summary.notified).toBeGreaterThanOrEqual(1);
    // The listening connection was given back: nothing of the relay's is checked out across invocations.
    expect(db.pool.totalCount - db.pool.idleCount).toBe(0);
  });

  it('two relays at once over the same keys: every event published once, each key in seq order', async () => {
    const broker = new FakePublisher();
    // Slow sends, so the two relays' rounds overlap and contend for keys.
    const slow = {
      publish: async (...args: Parameters<FakePublisher['publish']>) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return broker.publish(...args);
      },
    };
    const keys = Array.from({ length: 12 }, (_, index) => `acct-${index}`);
    const emitting = (async () => {
      for (let round = 0; round < 10; round += 1) {
        await emitNotifying(`src-${round}`, ...keys.map((key): [string, string] => [key, String(round)]));
      }
    })();
    const relays = [1, 2].map(() =>
      runRelay({ ...loopDeps(db, broker, { wake: 'notify', keysPerRound: 3 }, 2_000), publisher: slow }),
    );
    await emitting;
    const summaries = await Promise.all(relays);

    const byKey = new Map<string, string[]>();
    for (const message of broker.acked)
      byKey.set(message.key, [...(byKey.get(message.key) ?? []), String(message.value)]);
    for (const key of keys)
      expect(byKey.get(key)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(new Set(broker.ackedIds()).size).toBe(broker.acked.length);
    // Both took part.
    expect(summaries.map((summary) => summary.published > 0)).toEqual([true, true]);
  });

  it('the relay’s pool ends a session left idle in its transaction, so a vanished relay holds no key', async () => {
    const pool = connectionPool(readPostgresSettings({ auth: 'url', url: target.url() }, {}), {
      consumer: 'outbox-relay',
      concurrency: 1,
      credentials: async () => ({ password: async () => '' }),
      idleInTransactionTimeoutMs: 300,
    });
    const client = await pool.connect();
    client.on('error', () => undefined);
    try {
      expect((await client.query('SHOW idle_in_transaction_session_timeout')).rows[0]).toEqual({
        idle_in_transaction_session_timeout: '300ms',
      });
      await client.query('BEGIN');
      await new Promise((resolve) => setTimeout(resolve, 800));
      await expect(client.query('SELECT 1')).rejects.toThrow(
        /idle-in-transaction timeout|terminat|Connection/i,
      );
    } finally {
      client.release(true);
      await pool.end();
    }
  });
});
