/**
 * The statements of the inbox and quarantine tables (schema.ts), one method each. Every statement is
 * unnamed (never a prepared statement's name: a pooled proxy connection may serve another session next)
 * and takes its times from the engine's clock, as the DynamoDB store's conditions do.
 */
import type { PoolClient } from 'pg';
import { boundedString } from '../core/bounded-text.js';
import type { Lease } from '../core/effect.js';
import { INBOX_ATTRIBUTES as A, type DedupRow, INBOX_STATUS, readDedupRow } from '../core/inbox-rows.js';
import { classifyExistingRow, type InboxEntry, type RowConflict } from '../core/inbox-store.js';
import { QUARANTINE_LIMITS, type QuarantineItem } from '../core/quarantine-row.js';
import { checkedSchema } from './schema.js';
import { storedKey, storedText } from './sql-text.js';

export type TakeResult =
  | { readonly kind: 'taken' }
  | { readonly kind: 'conflict'; readonly conflict: RowConflict };

/** How a taken row is written: completed with its effect, or claimed under a lease. */
export type TakenAs =
  | { readonly completed: true }
  | { readonly leaseOwner: string; readonly leaseUntilMs: number };

/** Tries before a row that blocked an insert and was gone when read is taken as a transient fault. */
const TAKE_TRIES = 3;

export class InboxTables {
  readonly #consumer: string;
  readonly #ttlSeconds: number;
  readonly #take: string;
  readonly #read: string;
  readonly #complete: string;
  readonly #release: string;
  readonly #exists: string;
  readonly #quarantine: string;
  readonly #hasQuarantine: string;
  readonly #deleteExpired: string;

  constructor(schema: string, consumer: string, ttlSeconds: number) {
    const s = checkedSchema(schema);
    this.#consumer = consumer;
    this.#ttlSeconds = ttlSeconds;
    // The condition of dynamodb-inbox-store.ts#CLAIMABLE: an expired row, or a lease that ended, is free.
    this.#take = `INSERT INTO ${s}.inbox AS existing
  (consumer, dedup_key, status, payload_hash, source, expires_at, lease_owner, lease_until, completed_at, completed_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL)
ON CONFLICT (consumer, dedup_key) DO UPDATE SET
  status = EXCLUDED.status, payload_hash = EXCLUDED.payload_hash, source = EXCLUDED.source,
  expires_at = EXCLUDED.expires_at, lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until,
  completed_at = EXCLUDED.completed_at, completed_by = NULL
  WHERE existing.expires_at < $10 OR (existing.status = $11 AND existing.lease_until < $12)
RETURNING 1`;
    this.#read = `SELECT status, payload_hash, source, expires_at, lease_owner, lease_until
  FROM ${s}.inbox WHERE consumer = $1 AND dedup_key = $2`;
    // Fenced as in DynamoDB: only this attempt's lease completes, and a retry of this completion finds it done.
    this.#complete = `UPDATE ${s}.inbox
  SET status = $4, completed_at = $5, completed_by = $3, lease_owner = NULL, lease_until = NULL
  WHERE consumer = $1 AND dedup_key = $2 AND (lease_owner = $3 OR completed_by = $3)`;
    this.#release = `DELETE FROM ${s}.inbox WHERE consumer = $1 AND dedup_key = $2 AND lease_owner = $3`;
    this.#exists = `SELECT 1 FROM ${s}.inbox WHERE consumer = $1 AND dedup_key = $2`;
    this.#quarantine = `INSERT INTO ${s}.quarantine (consumer, quarantine_key, status, quarantined_at, item)
  VALUES ($1, $2, $3, $4, $5) ON CONFLICT (consumer, quarantine_key) DO NOTHING`;
    this.#hasQuarantine = `SELECT 1 FROM ${s}.quarantine WHERE consumer = $1 AND quarantine_key = $2`;
    // Bounded, and skipping rows another transaction holds (a claim taking an expired row over).
    this.#deleteExpired = `DELETE FROM ${s}.inbox WHERE (consumer, dedup_key) IN (
  SELECT consumer, dedup_key FROM ${s}.inbox WHERE consumer = $1 AND expires_at < $2
  LIMIT $3 FOR UPDATE SKIP LOCKED)`;
  }

  /**
   * Takes the event's row: inserts it, or takes over an expired row or an ended lease. Otherwise reads
   * the row that stood in the way and says why (duplicate, conflict, live lease).
   */
  async takeRow(client: PoolClient, entry: InboxEntry, nowMs: number, as: TakenAs): Promise<TakeResult> {
    const key = storedKey(entry.dedupKey);
    const nowSeconds = Math.floor(nowMs / 1000);
    const completed = 'completed' in as;
    for (let attempt = 1; attempt <= TAKE_TRIES; attempt++) {
      const taken = await client.query(this.#take, [
        this.#consumer,
        key,
        completed ? INBOX_STATUS.completed : INBOX_STATUS.inProgress,
        entry.payloadHash,
        storedText(boundedString(entry.source, QUARANTINE_LIMITS.keyBytes).text),
        nowSeconds + this.#ttlSeconds,
        completed ? null : as.leaseOwner,
        completed ? null : as.leaseUntilMs,
        completed ? nowMs : null,
        nowSeconds,
        INBOX_STATUS.inProgress,
        nowMs,
      ]);
      if (taken.rowCount === 1) return { kind: 'taken' };
      const row = await this.readDedupRow(client, entry.dedupKey);
      if (row !== undefined)
        return { kind: 'conflict', conflict: classifyExistingRow(row, entry.payloadHash) };
      // Outside a transaction the row can go between the two statements (a release): take it again.
    }
    throw Object.assign(new Error('the inbox row kept changing while it was taken'), { code: '40001' });
  }

  /** The key's row, expired or not (the operator tool reads it too: operator/postgres-operator-inbox.ts). */
  async readDedupRow(client: Pick<PoolClient, 'query'>, dedupKey: string): Promise<DedupRow | undefined> {
    const { rows } = await client.query(this.#read, [this.#consumer, storedKey(dedupKey)]);
    return rows[0] === undefined ? undefined : readDedupRow(numbered(rows[0]));
  }

  async completeLease(client: PoolClient, lease: Lease, nowMs: number): Promise<boolean> {
    const { rowCount } = await client.query(this.#complete, [
      this.#consumer,
      storedKey(lease.dedupKey),
      lease.token,
      INBOX_STATUS.completed,
      nowMs,
    ]);
    return rowCount === 1;
  }

  async releaseLease(client: PoolClient, lease: Lease): Promise<'released' | 'lease-lost'> {
    const key = storedKey(lease.dedupKey);
    const { rowCount } = await client.query(this.#release, [this.#consumer, key, lease.token]);
    if (rowCount === 1) return 'released';
    // No row at all: nobody holds the key. A row under another token: taken over.
    const { rows } = await client.query(this.#exists, [this.#consumer, key]);
    return rows.length > 0 ? 'lease-lost' : 'released';
  }

  /** Writes the row once; false when it was there already (a redelivery of a quarantined record). */
  async insertQuarantine(client: PoolClient, key: string, item: QuarantineItem): Promise<boolean> {
    const { rowCount } = await client.query(this.#quarantine, [
      this.#consumer,
      storedKey(key),
      item[A.status],
      item[A.quarantinedAt],
      // JSON text: U+0000 travels escaped, where jsonb would refuse it.
      JSON.stringify(item),
    ]);
    return rowCount === 1;
  }

  async hasQuarantine(client: PoolClient, key: string): Promise<boolean> {
    const { rows } = await client.query(this.#hasQuarantine, [this.#consumer, storedKey(key)]);
    return rows.length > 0;
  }

  async deleteExpired(client: PoolClient, nowSeconds: number, limit: number): Promise<number> {
    const { rowCount } = await client.query(this.#deleteExpired, [this.#consumer, nowSeconds, limit]);
    return rowCount ?? 0;
  }
}

/** A row as read: `pg` returns bigint columns as text, the row readers take numbers. */
function numbered(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const column of [A.expiresAt, A.leaseUntil]) {
    if (typeof out[column] === 'string') out[column] = Number(out[column]);
    if (out[column] === null) delete out[column];
  }
  for (const column of [A.leaseOwner]) if (out[column] === null) delete out[column];
  return out;
}
