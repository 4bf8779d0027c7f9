/**
 * The consumer's side of the outbox on Postgres (docs/postgres.md#outbox): a record's events, inserted
 * after its SQL inside its savepoint, so they commit with its inbox row and effect, or roll back with them.
 *
 * Each event takes the next seq of its key from `outbox_keys`: `INSERT ... ON CONFLICT DO UPDATE SET
 * last_seq = last_seq + n` locks the key's row until COMMIT, so a second transaction emitting to the key
 * waits there and takes its seqs after the first committed (or rolled back and gave them up). Seq order is
 * then commit order per key. A sequence would not give that: its values are taken at INSERT, and two
 * transactions can commit in the other order, so a relay could publish seq 8 before seq 7 is visible.
 */
import type { PoolClient } from 'pg';
import type { OutboxEmission } from '../../core/outbox-appends.js';
import { checkedSchema } from '../schema.js';
import { storedKey } from '../sql-text.js';
import { outboxChannel, storedHeaders, storedValue } from './outbox-columns.js';

/** One key of a record's events, and how many it emits there. */
interface KeyCount {
  readonly topic: string;
  /** As stored (sql-text.ts). */
  readonly key: string;
  count: number;
}

export class OutboxWrites {
  readonly #consumer: string;
  readonly #takeSeqs: string;
  readonly #insert: string;
  /**
   * Sent once by a transaction in which a committed record emitted: Postgres delivers a notification
   * only when its transaction commits, so a listening relay wakes when the events are visible.
   */
  readonly notify: string;

  constructor(schema: string, consumer: string) {
    const s = checkedSchema(schema);
    this.#consumer = consumer;
    this.#takeSeqs = `INSERT INTO ${s}.outbox_keys AS k (consumer, topic, kafka_key, last_seq)
  SELECT $1, topic, kafka_key, n FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(topic, kafka_key, n)
ON CONFLICT (consumer, topic, kafka_key) DO UPDATE SET last_seq = k.last_seq + EXCLUDED.last_seq
RETURNING topic, kafka_key, last_seq`;
    // The id is a UUIDv5 of the consumer, the source's dedup key and the event's position: a row with it
    // is this very event, pending from an earlier application of the source (its inbox row expired and
    // was taken again). The pending copy is published; a second would only be a duplicate for the next inbox.
    this.#insert = `INSERT INTO ${s}.outbox
  (id, consumer, topic, kafka_key, seq, value, value_is_text, headers, bytes, committed_at, source)
  SELECT id, $1, topic, kafka_key, seq, value, value_is_text, headers, bytes, $2, $3
  FROM unnest($4::uuid[], $5::text[], $6::text[], $7::bigint[], $8::bytea[], $9::boolean[], $10::text[], $11::integer[])
    AS u(id, topic, kafka_key, seq, value, value_is_text, headers, bytes)
ON CONFLICT (id) DO NOTHING`;
    this.notify = `NOTIFY ${outboxChannel(s)}`;
  }

  /**
   * Inserts a record's events in the effect's order: two statements, whatever their number (the keys' seqs,
   * then the events). Throws what Postgres raised; the caller judges it by its SQLSTATE.
   */
  async write(
    client: Pick<PoolClient, 'query'>,
    dedupKey: string,
    emissions: readonly OutboxEmission[],
    nowMs: number,
  ): Promise<void> {
    if (emissions.length === 0) return;
    const keys = new Map<string, KeyCount>();
    const keyOf = (emission: OutboxEmission) => JSON.stringify([emission.topic, storedKey(emission.key)]);
    for (const emission of emissions) {
      const id = keyOf(emission);
      const known = keys.get(id);
      if (known) known.count += 1;
      else keys.set(id, { topic: emission.topic, key: storedKey(emission.key), count: 1 });
    }
    // One order of locking for every transaction: two records emitting to the same keys never deadlock here.
    const ordered = [...keys.values()].sort((a, b) => compare(a.topic, b.topic) || compare(a.key, b.key));
    const { rows } = await client.query(this.#takeSeqs, [
      this.#consumer,
      ordered.map((key) => key.topic),
      ordered.map((key) => key.key),
      ordered.map((key) => key.count),
    ]);
    /** The next seq of each key for this record: its first is last_seq - count + 1. */
    const next = new Map<string, number>();
    for (const row of rows) {
      const id = JSON.stringify([String(row.topic), String(row.kafka_key)]);
      next.set(id, Number(row.last_seq) - (keys.get(id)?.count ?? 0) + 1);
    }
    const columns = {
      ids: [] as string[],
      topics: [] as string[],
      keys: [] as string[],
      seqs: [] as number[],
      values: [] as Buffer[],
      isText: [] as boolean[],
      headers: [] as string[],
      bytes: [] as number[],
    };
    for (const emission of emissions) {
      const id = keyOf(emission);
      const seq = next.get(id);
      if (seq === undefined) throw new Error(`no seq was returned for ${id}`);
      next.set(id, seq + 1);
      const value = storedValue(emission.value);
      columns.ids.push(emission.id);
      columns.topics.push(emission.topic);
      columns.keys.push(storedKey(emission.key));
      columns.seqs.push(seq);
      columns.values.push(value.value);
      columns.isText.push(value.isText);
      columns.headers.push(storedHeaders(emission.headers));
      columns.bytes.push(emission.bytes);
    }
    await client.query(this.#insert, [
      this.#consumer,
      nowMs,
      storedKey(dedupKey),
      columns.ids,
      columns.topics,
      columns.keys,
      columns.seqs,
      columns.values,
      columns.isText,
      columns.headers,
      columns.bytes,
    ]);
  }
}

/** Code-unit order: the same in every process, unlike a locale's. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
