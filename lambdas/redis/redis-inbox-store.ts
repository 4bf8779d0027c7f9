/**
 * The inbox on Redis or Valkey, for the side-effect mode only (docs/redis.md): a claim is a script that
 * writes an IN_PROGRESS row with a fresh attempt token when no live row holds the event (`SET ... PX`,
 * the dedup window as the key's time to live); complete and release act only while the token still holds
 * the row. Redis cannot commit with a database's effect, so `transact` and `sql` plans are refused.
 */
import { randomUUID } from 'node:crypto';
import { boundedString } from '../core/bounded-text.js';
import type { Clock } from '../core/clock.js';
import type { EffectWrite, Lease, SqlEffect } from '../core/effect.js';
import { type DedupRow, INBOX_STATUS } from '../core/inbox-rows.js';
import {
  type ClaimResult,
  type CommitMember,
  type CommitResult,
  classifyExistingRow,
  type IdempotentResult,
  type InboxEntry,
  type InboxStore,
  type QuarantineEntry,
} from '../core/inbox-store.js';
import { QUARANTINE_LIMITS, quarantineItem } from '../core/quarantine-row.js';
import { redisStoreError } from './redis-failure.js';
import { redisDedupRowKey, redisQuarantineEntryKey, redisQuarantineIndexKey } from './redis-keys.js';
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, QUARANTINE_SCRIPT, RELEASE_SCRIPT } from './redis-scripts.js';

/** What the store needs of a client: ioredis's `eval` and `exists` (a single node or a cluster). */
export interface RedisScripting {
  /** EVAL: a script run atomically on its keys. */
  eval(script: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** EXISTS: how many of the keys are there. */
  exists(...keys: string[]): Promise<number>;
}

export interface RedisInboxStoreOptions {
  readonly client: RedisScripting;
  readonly consumer: string;
  /** The dedup window: a row's time to live, and when it counts as absent. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
  /**
   * Quarantine entries the consumer keeps; past it the oldest go.
   * @default REDIS_QUARANTINE_CAP
   */
  readonly quarantineCap?: number;
}

/** Quarantine entries kept per consumer by default: enough to read and replay, bounded in memory. */
export const REDIS_QUARANTINE_CAP = 10_000;

/**
 * Claims a container remembers until their completion or release: far more than the records one
 * invocation holds at once; past it the oldest are forgotten (an outage that left releases unsent).
 */
const HELD_CLAIMS_KEPT = 10_000;

/** Why a plan that writes to a database cannot run on Redis: one line, as the consumer reports it. */
export const REDIS_CANNOT_COMMIT =
  'Redis cannot commit with a database write: with the Redis store, return { kind: "call", run } (docs/redis.md)';

const TRANSACTIONAL_NEEDS_DATABASE: CommitResult = {
  kind: 'effect-failed',
  reason: 'systemic-store-error',
  message: REDIS_CANNOT_COMMIT,
};

/** The row as the scripts store it (redis-scripts.ts); the soak reads it too (local/soak/redis-soak-store.ts). */
export interface StoredRow {
  readonly s: DedupRow['status'];
  readonly h: string;
  readonly src: string;
  readonly exp: string;
  readonly lo?: string;
  readonly lu?: string;
  readonly cb?: string;
}

export class RedisInboxStore implements InboxStore {
  readonly #client: RedisScripting;
  readonly #consumer: string;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;
  readonly #quarantineCap: number;
  /** This container's claims by token: the row a completion writes back if the server lost it. */
  readonly #held = new Map<string, StoredRow>();

  constructor(options: RedisInboxStoreOptions) {
    this.#client = options.client;
    this.#consumer = options.consumer;
    this.#ttlSeconds = options.ttlSeconds;
    this.#clock = options.clock;
    this.#quarantineCap = options.quarantineCap ?? REDIS_QUARANTINE_CAP;
  }

  /** One event's row key: the hash tag holds consumer and dedup key, so an event's keys share a slot. */
  rowKey(dedupKey: string): string {
    return redisDedupRowKey(this.#consumer, dedupKey);
  }

  async commit(_entry: InboxEntry, _writes: readonly EffectWrite[], _sql?: SqlEffect): Promise<CommitResult> {
    return TRANSACTIONAL_NEEDS_DATABASE;
  }

  async commitGroup(members: readonly CommitMember[]): Promise<CommitResult[]> {
    return members.map(() => TRANSACTIONAL_NEEDS_DATABASE);
  }

  async applyIdempotent(_writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    return { kind: 'unsupported', message: REDIS_CANNOT_COMMIT };
  }

  async claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult> {
    const nowMs = this.#clock.nowMs();
    const token = randomUUID();
    const row: StoredRow = {
      s: INBOX_STATUS.inProgress,
      h: entry.payloadHash,
      src: boundedString(entry.source, QUARANTINE_LIMITS.keyBytes).text,
      exp: String(Math.floor(nowMs / 1_000) + this.#ttlSeconds),
      lo: token,
      lu: String(leaseUntilMs),
    };
    const found = await this.#run(
      'claim',
      CLAIM_SCRIPT,
      [this.rowKey(entry.dedupKey)],
      JSON.stringify(row),
      // Redis deletes it a second after its window's last second can have begun: never while it is live.
      (this.#ttlSeconds + 1) * 1_000,
      nowMs,
    );
    if (found !== null) {
      const existing = readRedisDedupRow(String(found));
      // ioredis sent the claim again after a lost connection, and its first send ran: the row is this claim's.
      if (existing.leaseOwner !== token) return classifyExistingRow(existing, entry.payloadHash);
    }
    this.#hold(token, row);
    return { kind: 'claimed', lease: { dedupKey: entry.dedupKey, token, leaseUntilMs } };
  }

  /**
   * COMPLETED while the token holds the row. A row the server lost (a failover) is written back with what
   * is left of its window, and answered 'lease-lost': the event ran, and LeaseLost counts what the store
   * lost (docs/redis.md#failover).
   */
  async complete(lease: Lease): Promise<'completed' | 'lease-lost'> {
    const claimed = this.#held.get(lease.token);
    this.#held.delete(lease.token);
    const completed =
      claimed === undefined
        ? ''
        : JSON.stringify({
            ...claimed,
            s: INBOX_STATUS.completed,
            lo: undefined,
            lu: undefined,
            cb: lease.token,
          });
    // Until a second after the window's last second, as the claim's own time to live.
    const ttlLeftMs = claimed === undefined ? 0 : (Number(claimed.exp) + 1) * 1_000 - this.#clock.nowMs();
    const answer = await this.#run(
      'complete',
      COMPLETE_SCRIPT,
      [this.rowKey(lease.dedupKey)],
      lease.token,
      completed,
      ttlLeftMs,
    );
    return answer === 'completed' ? 'completed' : 'lease-lost';
  }

  async release(lease: Lease): Promise<'released' | 'lease-lost'> {
    this.#held.delete(lease.token);
    const answer = await this.#run('release', RELEASE_SCRIPT, [this.rowKey(lease.dedupKey)], lease.token);
    return answer === 'released' ? 'released' : 'lease-lost';
  }

  async quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    const nowMs = this.#clock.nowMs();
    const item = quarantineItem(this.#consumer, entry, nowMs, this.#ttlSeconds);
    const answer = await this.#run(
      'quarantine',
      QUARANTINE_SCRIPT,
      [redisQuarantineEntryKey(this.#consumer, entry.coordinates), redisQuarantineIndexKey(this.#consumer)],
      JSON.stringify(item),
      nowMs,
      this.#quarantineCap,
    );
    return answer === 'quarantined' ? 'quarantined' : 'already-quarantined';
  }

  async isQuarantined(coordinates: string): Promise<boolean> {
    try {
      return (await this.#client.exists(redisQuarantineEntryKey(this.#consumer, coordinates))) === 1;
    } catch (error) {
      throw redisStoreError('isQuarantined', error);
    }
  }

  /** A script on its keys; a failure is an InboxStoreError, transient or systemic (redis-failure.ts). */
  async #run(
    operation: string,
    script: string,
    keys: readonly string[],
    ...args: (string | number)[]
  ): Promise<unknown> {
    try {
      return await this.#client.eval(script, keys.length, ...keys, ...args);
    } catch (error) {
      throw redisStoreError(operation, error);
    }
  }

  #hold(token: string, row: StoredRow): void {
    this.#held.set(token, row);
    if (this.#held.size > HELD_CLAIMS_KEPT) this.#held.delete(this.#held.keys().next().value as string);
  }
}

/** A dedup row as the store keeps it (the JSON a GET of its key answers), as the engine reads rows. */
export function readRedisDedupRow(json: string): DedupRow {
  const row = JSON.parse(json) as StoredRow;
  return {
    status: row.s,
    payloadHash: row.h,
    source: row.src,
    leaseUntilMs: row.lu === undefined ? undefined : Number(row.lu),
    expiresAtSeconds: Number(row.exp),
    ...(row.lo === undefined ? {} : { leaseOwner: row.lo }),
  };
}
