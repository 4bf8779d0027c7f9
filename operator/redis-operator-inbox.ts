/**
 * The operator's inbox on Redis or Valkey (operator-inbox.ts), on the keys of lambdas/redis/redis-keys.ts:
 *
 * - An entry is listed while it is in the consumer's quarantine index (a sorted set by quarantined_at),
 *   which holds QUARANTINED entries only; a discard or a replay that settles it moves it to the audit
 *   index (by when it was dealt with), where it stays, bounded, for audit.
 * - A parked entry is moved to its parked key, in its place in its index, by one script with its delete
 *   from the entry's key, so the record's key is free for the consumer to quarantine it again.
 * - The entry (JSON) holds the same attributes as the DynamoDB item (lambdas/core/quarantine-row.ts), its
 *   `pk` too, so the rows read alike on every store.
 * - A write to an entry an operator read is a script that compares the stored JSON with the very text
 *   that was read (redis-operator-scripts.ts): any change since, by the consumer or another operator,
 *   fails it.
 * - A failed batch's replay log is a hash beside them (the batches' records went through the consumer as
 *   on any store); the logs of the batches replayed longest ago go past REDIS_REPLAY_LOG_CAP.
 */
import type { Cluster, Redis } from 'ioredis';
import {
  INBOX_ATTRIBUTES as A,
  type DedupRow,
  INBOX_STATUS,
  FAILED_BATCH_ATTRIBUTES as L,
  OPERATOR_ATTRIBUTES as O,
  quarantineRowKey,
  replayingRowKey,
} from '../lambdas/core/inbox-rows.js';
import { type QuarantineRow, readQuarantineRow } from '../lambdas/core/quarantine-row.js';
import { REDIS_QUARANTINE_CAP, readRedisDedupRow } from '../lambdas/redis/redis-inbox-store.js';
import {
  redisAuditIndexKey,
  redisDedupRowKey,
  redisParkedEntryKey,
  redisQuarantineEntryKey,
  redisQuarantineIndexKey,
  redisReplayLogIndexKey,
  redisReplayLogKey,
} from '../lambdas/redis/redis-keys.js';
import type { UserError } from './cli/user-error.js';
import {
  type BatchReplay,
  type ReplayLog,
  readReplayLogText,
  replayOutcomes,
} from './failed-batches/replay-log.js';
import {
  type Discard,
  discardedItem,
  type ListFilter,
  type OperatorInbox,
  type QuarantineListing,
} from './operator-inbox.js';
import { PARK_SCRIPT, RECORD_REPLAY_SCRIPT, SETTLE_SCRIPT, UNPARK_SCRIPT } from './redis-operator-scripts.js';

/** Failed batches whose replay log a consumer keeps: each log is bounded (replay-log.ts), so all of them are. */
export const REDIS_REPLAY_LOG_CAP = 1_000;

export interface RedisInboxTarget {
  readonly client: Redis | Cluster;
  readonly consumer: string;
  /** Where the server is, without a password: `cache.example:6379`. */
  readonly where: string;
  /** The failure's advice (redis-target.ts). */
  readonly advice: (error: unknown) => UserError | undefined;
  /** The REDIS_* variables a consumer run here (`--handler`) reaches the same server with. */
  readonly handlerVariables: Readonly<Record<string, string>>;
  /** Which of them an operator named, and by what (a flag, a variable): a function's must match. */
  readonly namedBy: Readonly<Record<string, string>>;
  /**
   * Entries out of the listing kept for audit; past it the ones dealt with longest ago go.
   * @default REDIS_QUARANTINE_CAP, as the listing
   */
  readonly auditCap?: number;
  /**
   * Failed batches whose replay log is kept; past it the logs of those replayed longest ago go.
   * @default REDIS_REPLAY_LOG_CAP
   */
  readonly replayLogCap?: number;
}

/** Entries read per MGET while listing: an entry may be hundreds of KB. */
const LIST_PAGE_ENTRIES = 100;

export class RedisOperatorInbox implements OperatorInbox {
  readonly consumer: string;
  readonly #target: RedisInboxTarget;
  readonly #client: Redis | Cluster;
  readonly #auditCap: number;
  readonly #replayLogCap: number;
  /** Each item object read → its text as stored: what a conditional write compares against. */
  readonly #asRead = new WeakMap<object, string>();

  constructor(target: RedisInboxTarget) {
    this.consumer = target.consumer;
    this.#target = target;
    this.#client = target.client;
    this.#auditCap = target.auditCap ?? REDIS_QUARANTINE_CAP;
    this.#replayLogCap = target.replayLogCap ?? REDIS_REPLAY_LOG_CAP;
  }

  describe(): string {
    return `Redis at ${this.#target.where}`;
  }

  async listQuarantined(filter: ListFilter): Promise<QuarantineListing> {
    const rows: QuarantineRow[] = [];
    const countsByReason: Record<string, number> = {};
    // Newest first, entries and parked copies alike; the index is bounded (the store's cap), so its names
    // come in one reply and the entries, which may be large, in pages.
    const keys = await this.#client.zrange(
      redisQuarantineIndexKey(this.consumer),
      '+inf',
      filter.sinceMs === undefined ? '-inf' : String(filter.sinceMs),
      'BYSCORE',
      'REV',
    );
    for (let start = 0; start < keys.length; start += LIST_PAGE_ENTRIES) {
      const texts = await this.#client.mget(...keys.slice(start, start + LIST_PAGE_ENTRIES));
      for (const text of texts) {
        // Gone, or dealt with, since the index was read.
        if (text === null) continue;
        const row = this.#rowOf(text);
        if (row.status !== INBOX_STATUS.quarantined) continue;
        if (filter.reason !== undefined && row.reason !== filter.reason) continue;
        countsByReason[row.reason] = (countsByReason[row.reason] ?? 0) + 1;
        if (filter.limit === undefined || rows.length < filter.limit) rows.push(row);
      }
    }
    return { rows, countsByReason };
  }

  async quarantineRow(id: string): Promise<QuarantineRow | undefined> {
    return this.#readRow(redisQuarantineEntryKey(this.consumer, id));
  }

  async parkedRow(id: string): Promise<QuarantineRow | undefined> {
    return this.#readRow(redisParkedEntryKey(this.consumer, id));
  }

  async dedupRow(dedupKey: string): Promise<DedupRow | undefined> {
    const text = await this.#client.get(redisDedupRowKey(this.consumer, dedupKey));
    return text === null ? undefined : readRedisDedupRow(text);
  }

  async discard(row: QuarantineRow, by: Discard): Promise<boolean> {
    if (row.status !== INBOX_STATUS.quarantined) return false;
    const settled = await this.#client.eval(
      SETTLE_SCRIPT,
      3,
      redisQuarantineEntryKey(this.consumer, row.id),
      redisQuarantineIndexKey(this.consumer),
      redisAuditIndexKey(this.consumer),
      this.#textOf(row),
      JSON.stringify(discardedItem(row, by)),
      by.nowMs,
      this.#auditCap,
    );
    return settled === 1;
  }

  async park(row: QuarantineRow): Promise<boolean> {
    const copy = { ...row.item, [A.pk]: replayingRowKey(this.consumer, row.id) };
    const parked = await this.#client.eval(
      PARK_SCRIPT,
      3,
      redisQuarantineEntryKey(this.consumer, row.id),
      redisParkedEntryKey(this.consumer, row.id),
      this.#indexOf(row.status),
      this.#textOf(row),
      JSON.stringify(copy),
      row.quarantinedAt ?? 0,
    );
    return parked === 1;
  }

  async unpark(id: string, item: Readonly<Record<string, unknown>>): Promise<void> {
    const stored: Record<string, unknown> = { ...item, [A.pk]: quarantineRowKey(this.consumer, id) };
    const listing = redisQuarantineIndexKey(this.consumer);
    const audit = redisAuditIndexKey(this.consumer);
    // Listed by when it was quarantined; kept for audit by when the replay settled it (replayed_at).
    const replayedAt = stored[O.replayedAt];
    const [index, other, score] =
      stored[A.status] === INBOX_STATUS.quarantined
        ? [listing, audit, readQuarantineRow(this.consumer, stored).quarantinedAt ?? 0]
        : [audit, listing, typeof replayedAt === 'number' ? replayedAt : Date.now()];
    await this.#client.eval(
      UNPARK_SCRIPT,
      4,
      redisQuarantineEntryKey(this.consumer, id),
      redisParkedEntryKey(this.consumer, id),
      index,
      other,
      JSON.stringify(stored),
      score,
      // The store trims the listing: the operator never drops a record still quarantined.
      index === audit ? this.#auditCap : '',
    );
  }

  async readReplayLog(name: string): Promise<ReplayLog | undefined> {
    const fields = await this.#client.hgetall(redisReplayLogKey(this.consumer, name));
    return Object.keys(fields).length === 0 ? undefined : readReplayLogText(fields);
  }

  async recordReplay(
    batch: { readonly name: string; readonly objectKey: string },
    replay: BatchReplay,
  ): Promise<void> {
    const outcomes = replayOutcomes(replay);
    await this.#client.eval(
      RECORD_REPLAY_SCRIPT,
      2,
      redisReplayLogKey(this.consumer, batch.name),
      redisReplayLogIndexKey(this.consumer),
      L.replayAttempts,
      L.firstReplayedAt,
      replay.atMs,
      this.#replayLogCap,
      ...[L.objectKey, batch.objectKey, L.replayedAt, String(replay.atMs), L.replayedBy, replay.by],
      ...[L.counts, JSON.stringify(outcomes.counts), L.runs, JSON.stringify(outcomes.runs)],
      ...[L.notes, JSON.stringify(outcomes.notes)],
    );
  }

  advice(error: unknown): UserError | undefined {
    return this.#target.advice(error);
  }

  consumerEnvironment() {
    return { variables: { ...this.#target.handlerVariables }, flags: { ...this.#target.namedBy } };
  }

  async close(): Promise<void> {
    // Every command has had its answer: nothing is left to wait for.
    this.#client.disconnect();
  }

  /** The index an entry of this status is in: listed while QUARANTINED, else kept for audit. */
  #indexOf(status: string): string {
    return status === INBOX_STATUS.quarantined
      ? redisQuarantineIndexKey(this.consumer)
      : redisAuditIndexKey(this.consumer);
  }

  async #readRow(key: string): Promise<QuarantineRow | undefined> {
    const text = await this.#client.get(key);
    return text === null ? undefined : this.#rowOf(text);
  }

  #rowOf(text: string): QuarantineRow {
    const item = JSON.parse(text) as Record<string, unknown>;
    this.#asRead.set(item, text);
    return readQuarantineRow(this.consumer, item);
  }

  /** The entry as it was read, for the guard; an entry this inbox did not read is a programming error. */
  #textOf(row: QuarantineRow): string {
    const text = this.#asRead.get(row.item);
    if (text === undefined) throw new Error(`quarantine row ${row.id} was not read through this inbox`);
    return text;
  }
}
