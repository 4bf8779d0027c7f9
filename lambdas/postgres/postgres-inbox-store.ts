/**
 * The inbox in Postgres: a row per event in the business database, inserted in the same transaction as the
 * team's SQL (docs/postgres.md). The row is taken with one `INSERT ... ON CONFLICT DO UPDATE ... WHERE`
 * whose condition is the DynamoDB store's (lambdas/core/dynamodb-inbox-store.ts: absent, expired, or a
 * lease that ended), so a concurrent insert of the same key waits on the unique index and then finds the
 * committed row. A group of records shares one transaction, a savepoint per record; a record's events go
 * to the outbox tables in its savepoint (outbox/outbox-writes.ts).
 */
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { boundedString } from '../core/bounded-text.js';
import type { Clock } from '../core/clock.js';
import type { EffectWrite, Lease, SqlEffect } from '../core/effect.js';
import { InboxStoreError } from '../core/errors.js';
import {
  type ClaimResult,
  type CommitGroupOptions,
  type CommitMember,
  type CommitResult,
  type IdempotentResult,
  type InboxEntry,
  type InboxStore,
  type QuarantineEntry,
  stopsGroup,
} from '../core/inbox-store.js';
import { QUARANTINE_LIMITS, quarantineItem } from '../core/quarantine-row.js';
import type { StoreRequestTracer } from '../core/telemetry/consumer-tracer.js';
import { type ConnectionSource, withPooledClient } from './connection.js';
import { InboxTables } from './inbox-tables.js';
import { type MemberOutbox, type MemberWork, runMembers } from './member-transaction.js';
import { OutboxWrites } from './outbox/outbox-writes.js';
import { classifySqlFailure, sqlErrorText } from './sqlstate.js';

export interface PostgresInboxStoreOptions {
  readonly pool: ConnectionSource;
  /** The schema holding the inbox tables (schema.ts). */
  readonly schema: string;
  readonly consumer: string;
  /** Dedup window: rows count as absent after it, and are deleted by deleteExpiredRows. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
  /**
   * A transaction whose records emitted sends NOTIFY for a listening relay (POSTGRES_OUTBOX_NOTIFY).
   * @default true
   */
  readonly notifyRelay?: boolean;
  /** Spans of its requests, when the consumer traces. @default none */
  readonly traceRequest?: StoreRequestTracer;
}

/** What the spans of its requests name the database (OpenTelemetry's `db.system.name`). */
const DB_SYSTEM = 'postgresql';

/**
 * Records of one transaction at most: each takes a subtransaction (its savepoint), and a backend caches 64
 * subtransaction ids before every other session's snapshots must look them up on disk
 * (PGPROC_MAX_CACHED_SUBXIDS; docs/postgres.md#group-commit). A longer group commits in several.
 */
export const MAX_RECORDS_PER_TRANSACTION = 60;

/** Expired rows one DELETE removes: short transactions, short locks (docs/postgres.md#expired-rows). */
export const EXPIRED_ROWS_PER_DELETE = 1_000;

/** An `idempotent` plan's writes are DynamoDB items: one line, as every such record reports it. */
export const IDEMPOTENT_NEEDS_DYNAMODB =
  'an `idempotent` plan writes DynamoDB items: with the Postgres store, return { kind: "sql", run } (its statements commit with the inbox row)';

const DYNAMODB_WRITES_NEED_DYNAMODB: CommitResult = {
  kind: 'effect-failed',
  reason: 'systemic-store-error',
  message: 'a `transact` plan writes DynamoDB items: with the Postgres store, return { kind: "sql", run }',
};

export class PostgresInboxStore implements InboxStore {
  readonly #pool: ConnectionSource;
  readonly #traceRequest: StoreRequestTracer | undefined;
  readonly #tables: InboxTables;
  readonly #outbox: OutboxWrites;
  readonly #consumer: string;
  readonly #clock: Clock;
  readonly #ttlSeconds: number;
  readonly #notifyRelay: boolean;

  constructor(options: PostgresInboxStoreOptions) {
    this.#pool = options.pool;
    this.#traceRequest = options.traceRequest;
    this.#tables = new InboxTables(options.schema, options.consumer, options.ttlSeconds);
    this.#outbox = new OutboxWrites(options.schema, options.consumer);
    this.#consumer = options.consumer;
    this.#clock = options.clock;
    this.#ttlSeconds = options.ttlSeconds;
    this.#notifyRelay = options.notifyRelay ?? true;
  }

  async commit(entry: InboxEntry, writes: readonly EffectWrite[], sql?: SqlEffect): Promise<CommitResult> {
    const [result] = await this.commitGroup([{ entry, writes, ...(sql ? { sql } : {}) }]);
    return result as CommitResult;
  }

  /**
   * One transaction per MAX_RECORDS_PER_TRANSACTION members, a savepoint per member: a member whose row
   * is taken or whose SQL fails rolls back alone. After a member whose answer may leave it reported, the
   * rest are `not-sent`. Throws when the transaction's fate is unknown (a lost connection, a COMMIT with
   * no answer): every member is then retried, and its redelivery finds its row if the COMMIT landed.
   */
  async commitGroup(members: readonly CommitMember[], options?: CommitGroupOptions): Promise<CommitResult[]> {
    const results: CommitResult[] = [];
    /** What every later member answers once the group stopped: why it stopped decides (a deadline, a member). */
    let rest: CommitResult | undefined;
    for (let start = 0; start < members.length; start += MAX_RECORDS_PER_TRANSACTION) {
      const chunk = members.slice(start, start + MAX_RECORDS_PER_TRANSACTION);
      if (rest === undefined && start > 0 && options?.mayContinue?.() === false) rest = deadline();
      if (rest !== undefined) {
        const answer = rest;
        results.push(...chunk.map((): CommitResult => ({ ...answer })));
        continue;
      }
      const answers = await this.#commitChunk(chunk, options);
      results.push(...answers);
      if (answers.some((result) => result.kind === 'not-sent' && result.reason === 'deadline'))
        rest = deadline();
      else if (answers.some((result) => stopsGroup(result) || result.kind === 'not-sent'))
        rest = { kind: 'not-sent' };
    }
    return results;
  }

  async #commitChunk(
    members: readonly CommitMember[],
    options: CommitGroupOptions | undefined,
  ): Promise<CommitResult[]> {
    const work: MemberWork[] = members.map((member) => ({
      take: (client, nowMs) => this.#tables.takeRow(client, member.entry, nowMs, { completed: true }),
      sql: member.sql,
      refused: member.writes.length > 0 ? DYNAMODB_WRITES_NEED_DYNAMODB : undefined,
      outbox: this.#memberOutbox(member),
    }));
    const nowMs = () => this.#clock.nowMs();
    const mayContinue = options?.mayContinue ?? (() => true);
    const answers = await this.#withClient(
      'commit',
      (client) => runMembers(client, work, nowMs, mayContinue),
      members.length,
    );
    if (answers !== 'one-by-one') return answers;
    // The COMMIT was refused for something no member can be named for (a deferred constraint): each goes
    // again in a transaction of its own, in order, so the one that breaks it is refused alone.
    const results: CommitResult[] = [];
    for (const member of work) {
      if (results.length > 0 && !mayContinue()) {
        results.push(deadline());
        continue;
      }
      if (results.some((result) => stopsGroup(result) || result.kind === 'not-sent')) {
        results.push({ kind: 'not-sent' });
        continue;
      }
      const alone = await this.#withClient(
        'commit',
        (client) => runMembers(client, [member], nowMs, mayContinue),
        1,
      );
      // Alone, a refused COMMIT is this member's own: never `one-by-one` again.
      results.push(alone === 'one-by-one' ? { kind: 'not-sent' } : (alone[0] ?? { kind: 'not-sent' }));
    }
    return results;
  }

  /** A member's events, written in its transaction (docs/postgres.md#outbox). */
  #memberOutbox(member: CommitMember): MemberOutbox | undefined {
    const emissions = member.emits;
    if (!emissions?.length) return undefined;
    return {
      write: (client, nowMs) => this.#outbox.write(client, member.entry.dedupKey, emissions, nowMs),
      ...(this.#notifyRelay ? { notify: this.#outbox.notify } : {}),
    };
  }

  async applyIdempotent(_writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    return { kind: 'unsupported', message: IDEMPOTENT_NEEDS_DYNAMODB };
  }

  async claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult> {
    const token = randomUUID();
    const taken = await this.#withClient('claim', (client) =>
      this.#tables.takeRow(client, entry, this.#clock.nowMs(), { leaseOwner: token, leaseUntilMs }),
    );
    if (taken.kind === 'taken')
      return { kind: 'claimed', lease: { dedupKey: entry.dedupKey, token, leaseUntilMs } };
    return taken.conflict;
  }

  async complete(lease: Lease): Promise<'completed' | 'lease-lost'> {
    const updated = await this.#withClient('complete', (client) =>
      this.#tables.completeLease(client, lease, this.#clock.nowMs()),
    );
    return updated ? 'completed' : 'lease-lost';
  }

  async release(lease: Lease): Promise<'released' | 'lease-lost'> {
    return this.#withClient('release', (client) => this.#tables.releaseLease(client, lease));
  }

  async quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    const item = quarantineItem(this.#consumer, entry, this.#clock.nowMs(), this.#ttlSeconds);
    const key = boundedString(entry.coordinates, QUARANTINE_LIMITS.keyBytes).text;
    const inserted = await this.#withClient('quarantine', (client) =>
      this.#tables.insertQuarantine(client, key, item),
    );
    return inserted ? 'quarantined' : 'already-quarantined';
  }

  async isQuarantined(coordinates: string): Promise<boolean> {
    const key = boundedString(coordinates, QUARANTINE_LIMITS.keyBytes).text;
    return this.#withClient('quarantine lookup', (client) => this.#tables.hasQuarantine(client, key));
  }

  /** Deletes expired rows of this consumer, EXPIRED_ROWS_PER_DELETE per statement, `maxRows` at most. */
  async deleteExpiredRows(maxRows: number): Promise<{ deleted: number; more: boolean }> {
    let deleted = 0;
    while (deleted < maxRows) {
      const limit = Math.min(EXPIRED_ROWS_PER_DELETE, maxRows - deleted);
      const count = await this.#withClient('delete expired rows', (client) =>
        this.#tables.deleteExpired(client, Math.floor(this.#clock.nowMs() / 1000), limit),
      );
      deleted += count;
      if (count < limit) return { deleted, more: false };
    }
    return { deleted, more: true };
  }

  /** One request: a pooled connection for `use`, as a span of its records when the consumer traces. */
  #withClient<T>(operation: string, use: (client: PoolClient) => Promise<T>, records?: number): Promise<T> {
    const request = () => this.#onConnection(operation, use);
    if (this.#traceRequest === undefined) return request();
    return this.#traceRequest({ system: DB_SYSTEM, operation, ...(records ? { records } : {}) }, request);
  }

  /**
   * A pooled connection for one operation. A connection an error may have left mid-transaction or broken
   * is destroyed, not returned to the pool; the error becomes an InboxStoreError of its class.
   */
  async #onConnection<T>(operation: string, use: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw storeError(`${operation} (connecting)`, error);
    }
    try {
      return await withPooledClient(client, use);
    } catch (error) {
      throw error instanceof InboxStoreError ? error : storeError(operation, error);
    }
  }
}

function deadline(): CommitResult {
  return { kind: 'not-sent', reason: 'deadline' };
}

/** A failure outside a record's own SQL: the class decides whether retrying can help; never quarantined. */
export function storeError(operation: string, error: unknown): InboxStoreError {
  const failureClass = classifySqlFailure(error) === 'transient' ? 'transient' : 'systemic';
  return new InboxStoreError(`Postgres ${operation} failed: ${sqlErrorText(error)}`, {
    cause: error,
    failureClass,
  });
}
