/**
 * The operator's inbox in Postgres (operator-inbox.ts), on the tables of lambdas/postgres/schema.ts:
 *
 * - A quarantine row is listed while its `status` is QUARANTINED (the index quarantine_by_consumer); an
 *   operator's discard or replay changes the status, and the row stays for audit.
 * - A parked row is moved to `quarantine_replaying` under the same key, in one transaction with its
 *   delete from `quarantine`, so the record's key there is free for the consumer to quarantine it again.
 * - The item (JSON text) holds the same attributes as the DynamoDB item (lambdas/core/quarantine-row.ts),
 *   its `pk` too, so the rows read alike; keys are stored through storedKey (U+0000 escaped injectively).
 * - A write to a row an operator read is conditional on its item being the very text that was read
 *   (`item = $read`): any change since, by the consumer or another operator, fails it.
 */
import type { PoolClient } from 'pg';
import {
  INBOX_ATTRIBUTES as A,
  type DedupRow,
  INBOX_STATUS,
  FAILED_BATCH_ATTRIBUTES as L,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
  quarantineRowKey,
  replayingRowKey,
} from '../lambdas/core/inbox-rows.js';
import { type QuarantineRow, readQuarantineRow } from '../lambdas/core/quarantine-row.js';
import type { ConnectionSource } from '../lambdas/postgres/connection.js';
import { withPooledClient } from '../lambdas/postgres/connection.js';
import { InboxTables } from '../lambdas/postgres/inbox-tables.js';
import { checkedSchema } from '../lambdas/postgres/schema.js';
import { storedKey, storedText } from '../lambdas/postgres/sql-text.js';
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

export interface PostgresInboxTarget {
  readonly connections: ConnectionSource;
  readonly schema: string;
  readonly consumer: string;
  /** Where the database is, without a password: `db.example:5432/app`. */
  readonly where: string;
  /** The failure's advice (postgres-target.ts). */
  readonly advice: (error: unknown) => UserError | undefined;
  /** The POSTGRES_* variables a consumer run here (`--handler`) reaches the same database with. */
  readonly handlerVariables: Readonly<Record<string, string>>;
}

/** Rows read per statement while listing: a quarantine item may be hundreds of KB. */
const LIST_PAGE_ROWS = 100;

export class PostgresOperatorInbox implements OperatorInbox {
  readonly consumer: string;
  readonly #target: PostgresInboxTarget;
  readonly #schema: string;
  readonly #dedupRows: InboxTables;
  /** Each item object read → its text as stored: what a conditional write compares against. */
  readonly #asRead = new WeakMap<object, string>();

  constructor(target: PostgresInboxTarget) {
    this.consumer = target.consumer;
    this.#target = target;
    this.#schema = checkedSchema(target.schema);
    // Only its read of dedup rows is used: the operator takes no rows, so no dedup window applies.
    this.#dedupRows = new InboxTables(this.#schema, target.consumer, 0);
  }

  describe(): string {
    return `schema ${this.#schema} at ${this.#target.where}`;
  }

  async listQuarantined(filter: ListFilter): Promise<QuarantineListing> {
    const rows: QuarantineRow[] = [];
    const countsByReason: Record<string, number> = {};
    const s = this.#schema;
    const since = filter.sinceMs ?? Number.MIN_SAFE_INTEGER;
    const listed = (
      table: string,
      tiebreak: number,
    ) => `SELECT quarantined_at, quarantine_key, ${tiebreak} AS tiebreak, item
  FROM ${s}.${table} WHERE consumer = $1 AND status = $2 AND quarantined_at >= $3
    AND (quarantined_at, quarantine_key, ${tiebreak}) < ($4::bigint, $5::text, $6::integer)`;
    // Keyset pages, newest first, over the rows and their parked copies alike; `tiebreak` makes the order
    // total where a row and a parked copy share a key and a time.
    let after: readonly [number, string, number] = [Number.MAX_SAFE_INTEGER, '', 0];
    for (;;) {
      const { rows: page } = await this.#query(
        `${listed('quarantine', 1)} UNION ALL ${listed('quarantine_replaying', 0)}
  ORDER BY quarantined_at DESC, quarantine_key DESC, tiebreak DESC LIMIT ${LIST_PAGE_ROWS}`,
        [this.consumer, INBOX_STATUS.quarantined, since, ...after],
      );
      for (const stored of page) {
        const row = this.#rowOf(stored);
        if (filter.reason !== undefined && row.reason !== filter.reason) continue;
        countsByReason[row.reason] = (countsByReason[row.reason] ?? 0) + 1;
        if (filter.limit === undefined || rows.length < filter.limit) rows.push(row);
      }
      const last = page.at(-1);
      if (last === undefined || page.length < LIST_PAGE_ROWS) break;
      after = [Number(last.quarantined_at), String(last.quarantine_key), Number(last.tiebreak)];
    }
    return { rows, countsByReason };
  }

  async quarantineRow(id: string): Promise<QuarantineRow | undefined> {
    return this.#readRow('quarantine', id);
  }

  async parkedRow(id: string): Promise<QuarantineRow | undefined> {
    return this.#readRow('quarantine_replaying', id);
  }

  async dedupRow(dedupKey: string): Promise<DedupRow | undefined> {
    return this.#withClient((client) => this.#dedupRows.readDedupRow(client, dedupKey));
  }

  async discard(row: QuarantineRow, by: Discard): Promise<boolean> {
    const item = discardedItem(row, by);
    const { rowCount } = await this.#query(
      `UPDATE ${this.#schema}.quarantine SET status = $3, item = $4
  WHERE consumer = $1 AND quarantine_key = $2 AND status = $5 AND item = $6`,
      [
        this.consumer,
        storedKey(row.id),
        OPERATOR_STATUS.discarded,
        JSON.stringify(item),
        INBOX_STATUS.quarantined,
        this.#textOf(row),
      ],
    );
    return rowCount === 1;
  }

  async park(row: QuarantineRow): Promise<boolean> {
    const s = this.#schema;
    const key = storedKey(row.id);
    const copy = JSON.stringify({ ...row.item, [A.pk]: replayingRowKey(this.consumer, row.id) });
    return this.#transaction(async (client) => {
      const removed = await client.query(
        `DELETE FROM ${s}.quarantine WHERE consumer = $1 AND quarantine_key = $2 AND item = $3
  RETURNING status, quarantined_at`,
        [this.consumer, key, this.#textOf(row)],
      );
      const taken = removed.rows[0];
      if (taken === undefined) return false;
      const parked = await client.query(
        `INSERT INTO ${s}.quarantine_replaying (consumer, quarantine_key, status, quarantined_at, item)
  VALUES ($1, $2, $3, $4, $5) ON CONFLICT (consumer, quarantine_key) DO NOTHING`,
        [this.consumer, key, taken.status, taken.quarantined_at, copy],
      );
      return parked.rowCount === 1;
    });
  }

  async unpark(id: string, item: Readonly<Record<string, unknown>>): Promise<void> {
    const s = this.#schema;
    const key = storedKey(id);
    const stored: Record<string, unknown> = { ...item, [A.pk]: quarantineRowKey(this.consumer, id) };
    // Out of the listing a row keeps when it was quarantined (quarantined_since): the column is never null.
    const at = stored[A.quarantinedAt] ?? stored[O.quarantinedSince] ?? 0;
    await this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO ${s}.quarantine (consumer, quarantine_key, status, quarantined_at, item)
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (consumer, quarantine_key) DO UPDATE
  SET status = EXCLUDED.status, quarantined_at = EXCLUDED.quarantined_at, item = EXCLUDED.item`,
        [this.consumer, key, String(stored[A.status]), at, JSON.stringify(stored)],
      );
      await client.query(
        `DELETE FROM ${s}.quarantine_replaying WHERE consumer = $1 AND quarantine_key = $2`,
        [this.consumer, key],
      );
      return true;
    });
  }

  async readReplayLog(name: string): Promise<ReplayLog | undefined> {
    const { rows } = await this.#query(
      `SELECT ${Object.values(L).join(', ')} FROM ${this.#schema}.failed_batch_replays
  WHERE consumer = $1 AND object_name = $2`,
      [this.consumer, storedKey(name)],
    );
    const row = rows[0];
    return row === undefined ? undefined : readReplayLogText(row);
  }

  async recordReplay(
    batch: { readonly name: string; readonly objectKey: string },
    replay: BatchReplay,
  ): Promise<void> {
    const outcomes = replayOutcomes(replay);
    await this.#query(
      `INSERT INTO ${this.#schema}.failed_batch_replays AS logged
  (consumer, object_name, object_key, replay_attempts, first_replayed_at, replayed_at, replayed_by,
   replay_counts, replay_runs, replay_notes)
  VALUES ($1, $2, $3, 1, $4, $4, $5, $6, $7, $8)
ON CONFLICT (consumer, object_name) DO UPDATE SET
  object_key = EXCLUDED.object_key, replay_attempts = logged.replay_attempts + 1,
  replayed_at = EXCLUDED.replayed_at, replayed_by = EXCLUDED.replayed_by,
  replay_counts = EXCLUDED.replay_counts, replay_runs = EXCLUDED.replay_runs,
  replay_notes = EXCLUDED.replay_notes`,
      [
        this.consumer,
        storedKey(batch.name),
        storedText(batch.objectKey),
        replay.atMs,
        storedText(replay.by),
        JSON.stringify(outcomes.counts),
        JSON.stringify(outcomes.runs),
        JSON.stringify(outcomes.notes),
      ],
    );
  }

  advice(error: unknown): UserError | undefined {
    return this.#target.advice(error);
  }

  consumerEnvironment() {
    return { variables: { ...this.#target.handlerVariables }, flags: { POSTGRES_SCHEMA: '--schema' } };
  }

  async close(): Promise<void> {
    await this.#target.connections.end();
  }

  async #readRow(table: string, id: string): Promise<QuarantineRow | undefined> {
    const { rows } = await this.#query(
      `SELECT item FROM ${this.#schema}.${table} WHERE consumer = $1 AND quarantine_key = $2`,
      [this.consumer, storedKey(id)],
    );
    return rows[0] === undefined ? undefined : this.#rowOf(rows[0]);
  }

  #rowOf(stored: Record<string, unknown>): QuarantineRow {
    const text = String(stored.item);
    const item = JSON.parse(text) as Record<string, unknown>;
    this.#asRead.set(item, text);
    return readQuarantineRow(this.consumer, item);
  }

  /** The row's item as it was read, for the guard; a row this inbox did not read is a programming error. */
  #textOf(row: QuarantineRow): string {
    const text = this.#asRead.get(row.item);
    if (text === undefined) throw new Error(`quarantine row ${row.id} was not read through this inbox`);
    return text;
  }

  async #query(text: string, values: unknown[]) {
    return this.#withClient((client) => client.query(text, values));
  }

  /** Runs `work` in a transaction, committed when it answers true, rolled back otherwise. */
  async #transaction(work: (client: PoolClient) => Promise<boolean>): Promise<boolean> {
    return this.#withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const done = await work(client);
        await client.query(done ? 'COMMIT' : 'ROLLBACK');
        return done;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** A connection for one operation; one an error may have broken is destroyed, not reused. */
  async #withClient<T>(use: (client: PoolClient) => Promise<T>): Promise<T> {
    return withPooledClient(await this.#target.connections.connect(), use);
  }
}
