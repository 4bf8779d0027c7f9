/**
 * `msk-inbox outbox ...` on a Postgres outbox (docs/operate.md#outbox, docs/postgres.md#outbox): events
 * written by the store's own OutboxWrites (emitCommitted) and quarantined by the relay's own statement
 * (OutboxRelayQueries.quarantineEvent). The port on both servers (describeOnPostgres), then the commands
 * through `--postgres URL --schema S` on a PGlite that takes the tool's connection beside the test's.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventBytes } from '../../../lambdas/core/outbox-appends.js';
import type { OutboxEvent } from '../../../lambdas/core/outbox-rows.js';
import { OutboxRelayQueries } from '../../../lambdas/postgres/outbox/relay-queries.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { PostgresOperatorOutbox } from '../../../operator/outbox/postgres-outbox.js';
import { ManualClock } from '../../support/clocks.js';
import { type LocalPostgres, startLocalPostgres } from '../../support/local-postgres.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';
import { EMITTER, emitCommitted, inTransaction, shown } from '../postgres-outbox/outbox-harness.js';
import { pgOperator } from './postgres-harness.js';

const TOPIC = 'payments';
const MINUTE = 60_000;
const payment = (key: string, value: string): OutboxEvent => ({ topic: TOPIC, key, value });

/** Emits each record's events at the clock's time, one minute apart; their ids. */
async function emitAll(db: FreshSchema, clock: ManualClock, records: [string, OutboxEvent[]][]) {
  const ids: string[] = [];
  for (const [dedupKey, events] of records) {
    await emitCommitted(db, dedupKey, events, clock.nowMs());
    const pending = await new OutboxRelayQueries({ schema: db.schema }).listPending(db.pool, {
      limit: 1_000,
    });
    ids.push(...pending.filter((event) => event.source === dedupKey).map((event) => event.id));
    clock.advance(MINUTE);
  }
  return ids;
}

/** The relay's quarantine of an event Kafka refused for good. */
async function quarantine(db: FreshSchema, clock: ManualClock, id: string): Promise<void> {
  const relay = new OutboxRelayQueries({ schema: db.schema, clock });
  await inTransaction(db.pool, (client) =>
    relay.quarantineEvent(client, { id }, 'message-too-large', 'MESSAGE_TOO_LARGE'),
  );
}

describeOnPostgres('the Postgres outbox, through the operator’s port', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let outbox: PostgresOperatorOutbox;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    outbox = new PostgresOperatorOutbox({
      connections: db.pool,
      schema: db.schema,
      where: 'test',
      advice: () => undefined,
    });
  });
  afterEach(() => db.drop());

  it('sums each key’s pending events, the longest waiting first, with totals over every key', async () => {
    const [a1, , b1] = await emitAll(db, clock, [
      ['src-1', [payment('k1', 'a1'), payment('k1', 'a22')]],
      ['src-2', [payment('k2', 'b1')]],
    ]);
    const start = clock.nowMs() - 2 * MINUTE;
    const k1Bytes = eventBytes(payment('k1', 'a1')) + eventBytes(payment('k1', 'a22'));

    const listing = await outbox.pendingKeys({ consumer: EMITTER, limit: 1 });

    expect(listing.keys).toEqual([
      {
        ...{ consumer: EMITTER, topic: TOPIC, key: 'k1', events: 2, headId: a1, oldestAtMs: start },
        bytes: k1Bytes,
      },
    ]);
    expect(listing.total).toEqual({
      keys: 2,
      events: 3,
      bytes: k1Bytes + eventBytes(payment('k2', 'b1')),
      oldestAtMs: start,
    });
    expect(b1).toBeDefined();
    expect((await outbox.pendingKeys({ consumer: 'other', limit: 10 })).total.keys).toBe(0);
  });

  it('lists quarantined events and republishes one at the END of its key, behind the key’s later events', async () => {
    const [first, poison] = await emitAll(db, clock, [
      ['src-1', [payment('k1', '1'), payment('k1', 'poison')]],
    ]);
    await quarantine(db, clock, poison as string);
    const relay = new OutboxRelayQueries({ schema: db.schema });
    await inTransaction(db.pool, (client) => relay.deletePublished(client, [first as string]));
    const [later] = await emitAll(db, clock, [['src-2', [payment('k1', '3')]]]);

    expect(await outbox.quarantined({ consumer: EMITTER, limit: 10 })).toMatchObject({
      total: 1,
      events: [{ id: poison, consumer: EMITTER, topic: TOPIC, key: 'k1', reason: 'message-too-large' }],
    });
    expect(await outbox.republish(poison as string, 'other', clock.nowMs())).toEqual({ kind: 'unknown' });

    const outcome = await outbox.republish(poison as string, EMITTER, clock.nowMs());

    expect(outcome).toEqual({
      kind: 'republished',
      event: { id: poison, consumer: EMITTER, topic: TOPIC, key: 'k1' },
      ahead: 1,
    });
    const pending = await inTransaction(db.pool, (client) =>
      relay.pendingEvents(client, { consumer: EMITTER, topic: TOPIC, kafkaKey: 'k1' }, { limit: 10 }),
    );
    expect(shown(pending)).toEqual(['k1 3 3', 'k1 4 poison']);
    expect(pending.map((event) => event.id)).toEqual([later, poison]);
    expect((await outbox.quarantined({ consumer: EMITTER, limit: 10 })).total).toBe(0);
  });

  it('answers a pending id as pending (the relay polls: nothing to touch), and an unknown one as unknown', async () => {
    const [id] = await emitAll(db, clock, [['src-1', [payment('k1', '1')]]]);
    expect(await outbox.republish(id as string, undefined, clock.nowMs())).toEqual({
      kind: 'pending',
      event: { id, consumer: EMITTER, topic: TOPIC, key: 'k1' },
    });
    expect(await outbox.republish('00000000-0000-5000-8000-000000000000', undefined, 0)).toEqual({
      kind: 'unknown',
    });
  });
});

describe('msk-inbox outbox --postgres', () => {
  const SCHEMA = 'operator_outbox';
  let postgres: LocalPostgres;
  let db: FreshSchema;
  const clock = new ManualClock();
  const run = (...argv: string[]) => pgOperator(postgres.url, SCHEMA, argv, undefined, () => clock.nowMs());

  beforeAll(async () => {
    postgres = await startLocalPostgres();
    await run('postgres', 'migrate');
    db = { schema: SCHEMA, pool: postgres.pool, drop: async () => undefined };
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  it('lists, republishes a quarantined event and says a pending one needs nothing', async () => {
    const [pending, poison] = await emitAll(db, clock, [
      ['src-1', [payment('k1', '1')]],
      ['src-2', [payment('k2', 'poison')]],
    ]);
    await quarantine(db, clock, poison as string);

    const list = await run('outbox', 'list');
    expect(list.out).toMatch(new RegExp(`^orders\\s+${TOPIC}\\s+"k1"\\s+1\\s+3 B\\s+2m\\s+${pending}$`, 'm'));
    expect(list.out).toContain('1 keys, 1 events (3 B) unpublished; the oldest waited 2m');
    expect((await run('outbox', 'quarantined')).out).toMatch(
      new RegExp(
        `^${poison}\\s+orders\\s+${TOPIC}\\s+"k2"\\s+message-too-large\\s+\\S+ \\S+\\s+MESSAGE_TOO_LARGE$`,
        'm',
      ),
    );

    expect((await run('outbox', 'republish', poison as string)).out).toBe(
      `republished ${poison} (consumer orders, ${TOPIC} key "k2"): appended at the end of its key's queue, behind 0 pending events; it now follows the key's later events, not its original place`,
    );
    expect((await run('outbox', 'quarantined')).out).toMatch(
      new RegExp(
        `^no quarantined outbox events for consumer orders in schema ${SCHEMA} at 127\\.0\\.0\\.1:\\d+/\\w+$`,
      ),
    );
    expect((await run('outbox', 'republish', pending as string)).out).toBe(
      `${pending} (consumer orders, ${TOPIC} key "k1") is pending: the Postgres relay polls and publishes it after the key's earlier events, nothing to republish`,
    );
    await expect(run('outbox', 'republish', '00000000-0000-5000-8000-000000000000')).rejects.toThrow(
      UserError,
    );
  });
});
