/**
 * The Postgres outbox under test: events written as the store writes them (OutboxWrites, in a transaction
 * of the test's own) and read back through the relay's queries.
 */
import type pg from 'pg';
import { type OutboxEmission, outboxEmissions } from '../../../lambdas/core/outbox-appends.js';
import type { OutboxEvent } from '../../../lambdas/core/outbox-rows.js';
import type { PendingEvent } from '../../../lambdas/postgres/outbox/outbox-columns.js';
import { OutboxWrites } from '../../../lambdas/postgres/outbox/outbox-writes.js';
import type { FreshSchema } from '../../support/postgres.js';

export const EMITTER = 'orders';

/** A record's events, checked and named as record-preparation.ts names them. */
export function emissionsOf(dedupKey: string, events: readonly OutboxEvent[]): OutboxEmission[] {
  const checked = outboxEmissions(EMITTER, dedupKey, events);
  if (!checked.ok) throw new Error(checked.problem);
  return [...checked.emissions];
}

/** An event of `payments` for `key`, its value naming it. */
export function payment(key: string, value: string): OutboxEvent {
  return { topic: 'payments', key, value };
}

/** Writes a record's events in a committed transaction of their own, on one connection of the pool. */
export async function emitCommitted(
  db: FreshSchema,
  dedupKey: string,
  events: readonly OutboxEvent[],
  nowMs: number,
): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await new OutboxWrites(db.schema, EMITTER).write(client, dedupKey, emissionsOf(dedupKey, events), nowMs);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/** Events as `key seq value`, to compare orders at a glance. */
export function shown(events: readonly PendingEvent[]): string[] {
  return events.map((event) => `${event.kafkaKey} ${event.seq} ${String(event.value)}`);
}

/** Runs `use` in a transaction on a connection of its own (a relay's round), committed after it. */
export async function inTransaction<T>(
  pool: pg.Pool,
  use: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await use(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
