/**
 * The relay's statements on the Postgres outbox (docs/postgres.md#outbox). A relay round, in one READ
 * COMMITTED transaction of its own connection:
 *
 *     BEGIN; claimKeys; for each key: pendingEvents, produce them in order, deletePublished (or
 *     quarantineEvent for one Kafka refuses for good); COMMIT
 *
 * The Kafka side is the relay's; these only read and move rows. Every statement is unnamed (no prepared
 * statement), so none pins an RDS Proxy connection.
 */
import { boundedString } from '../../core/bounded-text.js';
import { type Clock, systemClock } from '../../core/clock.js';
import { QUARANTINE_LIMITS } from '../../core/quarantine-row.js';
import { checkedSchema } from '../schema.js';
import { keyOfStored, storedKey, storedText } from '../sql-text.js';
import {
  EVENT_COLUMNS,
  type OutboxKey,
  type PendingEvent,
  pendingEventOf,
  type QuarantinedEvent,
  quarantinedEventOf,
} from './outbox-columns.js';

/**
 * What the relay needs of a connection: the `pg` client's query. A round's statements (claimKeys to
 * COMMIT) and deleteIdleKeys need one connection (a `pg.Client`, or a client from `pool.connect()`); a
 * pool, whose statements may each go to another connection, does only for the one-statement listings,
 * the lag, quarantineEvent and republish.
 */
export interface OutboxClient {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface OutboxRelayQueriesOptions {
  /** The schema holding the outbox tables (schema.ts, migration 3). */
  readonly schema: string;
  /** Times written (quarantined_at, a republish's committed_at) and the lag is measured by. */
  readonly clock?: Clock;
}

export class OutboxRelayQueries {
  readonly #clock: Clock;
  readonly #claim: { readonly all: string; readonly after: string; readonly upTo: string };
  readonly #pending: string;
  readonly #delete: string;
  readonly #quarantine: string;
  readonly #oldest: string;
  readonly #listPending: string;
  readonly #listQuarantined: string;
  readonly #republish: string;
  readonly #idleKeys: string;
  readonly #deleteIdle: string;

  constructor(options: OutboxRelayQueriesOptions) {
    const s = checkedSchema(options.schema);
    this.#clock = options.clock ?? systemClock;
    const sameKey = (a: string, b: string) =>
      `${a}.consumer = ${b}.consumer AND ${a}.topic = ${b}.topic AND ${a}.kafka_key = ${b}.kafka_key`;
    // A key is claimed by locking its HEAD, its lowest-seq pending event, FOR UPDATE SKIP LOCKED:
    // - Not any event row: a second relay would skip the head the first holds and take the key's next
    //   event, publishing it while the first is still publishing the one before (out of order, or ahead
    //   of it when the first fails). The head is the only row that admits a relay to a key, and a later
    //   event is never a head while an earlier one is pending, even one a relay deleted and has not
    //   committed: the others' snapshots still see it.
    // - Not the outbox_keys row: every emitting transaction locks it to take its seq, so a relay holding
    //   it while it produces would make the consumers' transactions wait on Kafka, and emitters holding it
    //   would hide the key from relays. Event rows are only ever inserted and deleted, never updated: a
    //   relay's lock and an emitter's never meet.
    // The heads are found by a loose index scan over (consumer, topic, kafka_key, seq): one index probe per
    // key with pending events, however many events each has, and no more probes than the round takes (the
    // recursion runs only as far as the LIMIT pulls it; no sort over every head, which grew with the keys
    // pending). Each head is locked as the recursion reaches it (a lateral subquery: the heads' key order is
    // kept, which a join may not keep). Keys go round in key order from where the last round stopped (`after`), up to it again
    // (`upTo`), so every key with pending events is reached within (keys pending / limit) rounds.
    const heads = (bounds: 'all' | 'after' | 'upTo') => {
      const first =
        bounds === 'after'
          ? 'WHERE (consumer, topic, kafka_key) > ($2, $3, $4)'
          : bounds === 'upTo'
            ? 'WHERE (consumer, topic, kafka_key) <= ($2, $3, $4)'
            : '';
      const next = bounds === 'upTo' ? 'AND (o.consumer, o.topic, o.kafka_key) <= ($2, $3, $4)' : '';
      return `WITH RECURSIVE heads AS (
  (SELECT id, consumer, topic, kafka_key FROM ${s}.outbox ${first} ORDER BY consumer, topic, kafka_key, seq LIMIT 1)
  UNION ALL
  SELECT next.id, next.consumer, next.topic, next.kafka_key FROM heads h CROSS JOIN LATERAL (
    SELECT o.id, o.consumer, o.topic, o.kafka_key FROM ${s}.outbox o
    WHERE (o.consumer, o.topic, o.kafka_key) > (h.consumer, h.topic, h.kafka_key) ${next}
    ORDER BY o.consumer, o.topic, o.kafka_key, o.seq LIMIT 1) next
)
SELECT o.consumer, o.topic, o.kafka_key FROM heads h CROSS JOIN LATERAL (
  SELECT consumer, topic, kafka_key FROM ${s}.outbox WHERE id = h.id FOR UPDATE SKIP LOCKED) o
LIMIT $1`;
    };
    this.#claim = { all: heads('all'), after: heads('after'), upTo: heads('upTo') };
    this.#pending = `SELECT ${EVENT_COLUMNS}, seq FROM ${s}.outbox
  WHERE consumer = $1 AND topic = $2 AND kafka_key = $3 ORDER BY seq LIMIT $4`;
    this.#delete = `DELETE FROM ${s}.outbox WHERE id = ANY($1::uuid[])`;
    // One statement: the event leaves the outbox and enters quarantine together. A row already there with
    // this id is the same event (its id names its source and position), quarantined before: replaced.
    this.#quarantine = `WITH moved AS (DELETE FROM ${s}.outbox WHERE id = $1 RETURNING ${EVENT_COLUMNS})
INSERT INTO ${s}.outbox_quarantine (${EVENT_COLUMNS}, reason, error, quarantined_at)
  SELECT ${EVENT_COLUMNS}, $2, $3, $4 FROM moved
ON CONFLICT (id) DO UPDATE SET (${EVENT_COLUMNS}, reason, error, quarantined_at) =
  (${prefixed('EXCLUDED', EVENT_COLUMNS)}, EXCLUDED.reason, EXCLUDED.error, EXCLUDED.quarantined_at)`;
    this.#oldest = `SELECT min(committed_at) AS oldest FROM ${s}.outbox`;
    this.#listPending = `SELECT ${EVENT_COLUMNS}, seq FROM ${s}.outbox WHERE ($1::text IS NULL OR consumer = $1)
  ORDER BY committed_at, consumer, topic, kafka_key, seq LIMIT $2`;
    this.#listQuarantined = `SELECT ${EVENT_COLUMNS}, reason, error, quarantined_at FROM ${s}.outbox_quarantine
  WHERE ($1::text IS NULL OR consumer = $1) ORDER BY quarantined_at, id LIMIT $2`;
    // One statement: out of quarantine, a fresh seq at the end of its key (the key's row locked as an
    // emitter locks it), into the outbox. A concurrent republish of the id finds the row gone.
    this.#republish = `WITH moved AS (DELETE FROM ${s}.outbox_quarantine WHERE id = $1 RETURNING ${EVENT_COLUMNS}),
seq AS (
  INSERT INTO ${s}.outbox_keys AS k (consumer, topic, kafka_key, last_seq)
    SELECT consumer, topic, kafka_key, 1 FROM moved
  ON CONFLICT (consumer, topic, kafka_key) DO UPDATE SET last_seq = k.last_seq + 1
  RETURNING last_seq
)
INSERT INTO ${s}.outbox (id, consumer, topic, kafka_key, seq, value, value_is_text, headers, bytes, committed_at, source)
  SELECT m.id, m.consumer, m.topic, m.kafka_key, seq.last_seq, m.value, m.value_is_text, m.headers, m.bytes, $2, m.source
  FROM moved m CROSS JOIN seq
RETURNING ${EVENT_COLUMNS}, seq`;
    this.#idleKeys = `SELECT consumer, topic, kafka_key FROM ${s}.outbox_keys k
  WHERE NOT EXISTS (SELECT 1 FROM ${s}.outbox o WHERE ${sameKey('o', 'k')})
  LIMIT $1 FOR UPDATE SKIP LOCKED`;
    this.#deleteIdle = `DELETE FROM ${s}.outbox_keys k
  USING unnest($1::text[], $2::text[], $3::text[]) AS u(consumer, topic, kafka_key)
  WHERE ${sameKey('k', 'u')} AND NOT EXISTS (SELECT 1 FROM ${s}.outbox o WHERE ${sameKey('o', 'k')})`;
  }

  /**
   * Locks up to `limit` keys with pending events that no other relay holds until the caller's transaction
   * ends: call it inside one (BEGIN first), at READ COMMITTED. Waits on no one. Keys come in key order
   * after `after` (the last key of the previous round), then from the first key up to `after`: a relay
   * passing its last claim on goes round every key in turn.
   */
  async claimKeys(
    client: OutboxClient,
    options: { readonly limit: number; readonly after?: OutboxKey },
  ): Promise<OutboxKey[]> {
    const { limit, after } = options;
    if (after === undefined) return keysOf(await client.query(this.#claim.all, [limit]));
    const bound = [after.consumer, after.topic, storedKey(after.kafkaKey)];
    const onward = keysOf(await client.query(this.#claim.after, [limit, ...bound]));
    if (onward.length === limit) return onward;
    const wrapped = keysOf(await client.query(this.#claim.upTo, [limit - onward.length, ...bound]));
    return [...onward, ...wrapped];
  }

  /** A claimed key's events, in seq order: the order their effects committed. */
  async pendingEvents(
    client: OutboxClient,
    key: OutboxKey,
    options: { readonly limit: number },
  ): Promise<PendingEvent[]> {
    const { rows } = await client.query(this.#pending, [
      key.consumer,
      key.topic,
      storedKey(key.kafkaKey),
      options.limit,
    ]);
    return rows.map(pendingEventOf);
  }

  /** Deletes events Kafka acknowledged; returns how many were there. */
  async deletePublished(client: OutboxClient, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { rowCount } = await client.query(this.#delete, [[...ids]]);
    return rowCount ?? 0;
  }

  /**
   * Moves an event Kafka refuses for good (too large for the topic, a topic that does not exist) to
   * outbox_quarantine, so the key's later events go ahead; false when it was no longer pending.
   */
  async quarantineEvent(
    client: OutboxClient,
    event: Pick<PendingEvent, 'id'>,
    reason: string,
    error: string,
  ): Promise<boolean> {
    const { rowCount } = await client.query(this.#quarantine, [
      event.id,
      storedText(boundedString(reason, QUARANTINE_LIMITS.reasonBytes).text),
      storedText(boundedString(error, QUARANTINE_LIMITS.errorBytes).text),
      this.#clock.nowMs(),
    ]);
    return rowCount === 1;
  }

  /** How long the oldest unpublished event has waited (the relay's lag); undefined when none waits. */
  async oldestPendingAgeMs(client: OutboxClient): Promise<number | undefined> {
    const { rows } = await client.query(this.#oldest);
    const oldest = rows[0]?.oldest;
    if (oldest === null || oldest === undefined) return undefined;
    return Math.max(0, this.#clock.nowMs() - Number(oldest));
  }

  /** Unpublished events, oldest first (an operator's listing). */
  async listPending(
    client: OutboxClient,
    options: { readonly consumer?: string; readonly limit: number },
  ): Promise<PendingEvent[]> {
    const { rows } = await client.query(this.#listPending, [options.consumer ?? null, options.limit]);
    return rows.map(pendingEventOf);
  }

  /** Quarantined events, oldest quarantine first. */
  async listQuarantined(
    client: OutboxClient,
    options: { readonly consumer?: string; readonly limit: number },
  ): Promise<QuarantinedEvent[]> {
    const { rows } = await client.query(this.#listQuarantined, [options.consumer ?? null, options.limit]);
    return rows.map(quarantinedEventOf);
  }

  /**
   * Moves a quarantined event back into the outbox with a fresh seq at the END of its key: it is then
   * published after the key's events that committed while it was set aside (docs/outbox.md names this
   * exception to commit order). Its committed_at becomes now, so the relay's lag counts from the
   * republish. Undefined when no quarantined event has the id. An event of the same id pending already
   * (its source applied again after its inbox row expired) is refused by the outbox's key (23505): the
   * quarantined copy stays.
   */
  async republish(client: OutboxClient, id: string): Promise<PendingEvent | undefined> {
    const { rows } = await client.query(this.#republish, [id, this.#clock.nowMs()]);
    return rows[0] === undefined ? undefined : pendingEventOf(rows[0]);
  }

  /**
   * Deletes up to `limit` rows of outbox_keys whose key has no pending event (one row per key ever emitted
   * to otherwise stays). Runs its own transaction: call it on a client outside one. The keys are locked
   * first (skipping those an emitter holds), then deleted by a second statement, whose snapshot is taken
   * after the locks were granted and so sees every event an emitter committed before: a key is never
   * deleted under a pending event, and its next emitter starts it again at seq 1.
   */
  async deleteIdleKeys(client: OutboxClient, options: { readonly limit: number }): Promise<number> {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query(this.#idleKeys, [options.limit]);
      const { rowCount } =
        rows.length === 0
          ? { rowCount: 0 }
          : await client.query(this.#deleteIdle, [
              rows.map((row) => String(row.consumer)),
              rows.map((row) => String(row.topic)),
              rows.map((row) => String(row.kafka_key)),
            ]);
      await client.query('COMMIT');
      return rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

function keysOf(result: { rows: Record<string, unknown>[] }): OutboxKey[] {
  return result.rows.map((row) => ({
    consumer: String(row.consumer),
    topic: String(row.topic),
    kafkaKey: keyOfStored(String(row.kafka_key)),
  }));
}

function prefixed(table: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${table}.${column.trim()}`)
    .join(', ');
}
