/**
 * The operator's outbox in Postgres (operator-outbox.ts), on the tables of migration 3
 * (docs/postgres.md#outbox). Quarantined events are listed and republished through the relay's own
 * statements (OutboxRelayQueries); the pending listing sums per key here, since the relay's listPending
 * gives single events up to a limit and a key's count must cover all of them. Nothing needs touching: the
 * Postgres relay polls, so a pending event is found without help.
 */
import type { PoolClient } from 'pg';
import { type ConnectionSource, withPooledClient } from '../../lambdas/postgres/connection.js';
import { OutboxRelayQueries } from '../../lambdas/postgres/outbox/relay-queries.js';
import { checkedSchema } from '../../lambdas/postgres/schema.js';
import { keyOfStored } from '../../lambdas/postgres/sql-text.js';
import { sqlStateOf } from '../../lambdas/postgres/sqlstate.js';
import type { UserError } from '../cli/user-error.js';
import type {
  OperatorOutbox,
  OutboxEventPlace,
  OutboxFilter,
  PendingListing,
  QuarantinedListing,
  RepublishOutcome,
} from './operator-outbox.js';

export interface PostgresOutboxTarget {
  readonly connections: ConnectionSource;
  readonly schema: string;
  /** Where the database is, without a password: `db.example:5432/app`. */
  readonly where: string;
  readonly advice: (error: unknown) => UserError | undefined;
}

const BY_CONSUMER = '($1::text IS NULL OR consumer = $1)';

export class PostgresOperatorOutbox implements OperatorOutbox {
  readonly #target: PostgresOutboxTarget;
  readonly #schema: string;
  readonly #keys: string;
  readonly #totals: string;
  readonly #quarantinedCount: string;
  readonly #placeIn: (table: string) => string;

  constructor(target: PostgresOutboxTarget) {
    this.#target = target;
    const s = checkedSchema(target.schema);
    this.#schema = s;
    const perKey = `FROM ${s}.outbox WHERE ${BY_CONSUMER} GROUP BY consumer, topic, kafka_key`;
    // The head is the key's lowest seq: the event its relay publishes next.
    this.#keys = `SELECT consumer, topic, kafka_key, count(*) AS events, sum(bytes) AS bytes,
  min(committed_at) AS oldest, (array_agg(id ORDER BY seq))[1] AS head ${perKey}
  ORDER BY oldest, consumer, topic, kafka_key LIMIT $2`;
    this.#totals = `SELECT count(*) AS keys, coalesce(sum(events), 0) AS events, coalesce(sum(bytes), 0) AS bytes,
  min(oldest) AS oldest FROM (SELECT count(*) AS events, sum(bytes) AS bytes, min(committed_at) AS oldest ${perKey}) k`;
    this.#quarantinedCount = `SELECT count(*) AS total FROM ${s}.outbox_quarantine WHERE ${BY_CONSUMER}`;
    this.#placeIn = (table) =>
      `SELECT consumer, topic, kafka_key FROM ${s}.${table} WHERE id = $2::uuid AND ${BY_CONSUMER}`;
  }

  describe(): string {
    return `schema ${this.#schema} at ${this.#target.where}`;
  }

  async pendingKeys(filter: OutboxFilter): Promise<PendingListing> {
    return this.#withClient(async (client) => {
      const keys = await client.query(this.#keys, [filter.consumer ?? null, filter.limit]);
      const totals = (await client.query(this.#totals, [filter.consumer ?? null])).rows[0] ?? {};
      return {
        keys: keys.rows.map((row) => ({
          ...placeOf(row),
          events: Number(row.events),
          bytes: Number(row.bytes),
          oldestAtMs: Number(row.oldest),
          headId: String(row.head),
        })),
        total: {
          keys: Number(totals.keys ?? 0),
          events: Number(totals.events ?? 0),
          bytes: Number(totals.bytes ?? 0),
          oldestAtMs:
            totals.oldest === null || totals.oldest === undefined ? undefined : Number(totals.oldest),
        },
      };
    });
  }

  async quarantined(filter: OutboxFilter): Promise<QuarantinedListing> {
    return this.#withClient(async (client) => {
      const events = await this.#queries().listQuarantined(client, filter);
      const { rows } = await client.query(this.#quarantinedCount, [filter.consumer ?? null]);
      return {
        events: events.map((event) => ({
          id: event.id,
          consumer: event.consumer,
          topic: event.topic,
          key: event.kafkaKey,
          reason: event.reason,
          error: event.error,
          quarantinedAtMs: event.quarantinedAt,
          source: event.source,
        })),
        total: Number(rows[0]?.total ?? 0),
      };
    });
  }

  async republish(id: string, consumer: string | undefined, nowMs: number): Promise<RepublishOutcome> {
    return this.#withClient(async (client) => {
      const quarantined = await this.#place(client, 'outbox_quarantine', id, consumer);
      if (quarantined !== undefined) {
        const { storedKey, ...place } = quarantined;
        const event = { id, ...place };
        try {
          // One statement: out of quarantine and in at the end of its key, with a fresh seq.
          const moved = await this.#queries(nowMs).republish(client, id);
          if (moved === undefined) {
            return { kind: 'changed', event, detail: 'it left the quarantine meanwhile' } as const;
          }
          const { rows } = await client.query(
            `SELECT count(*) AS ahead FROM ${this.#schema}.outbox
  WHERE consumer = $1 AND topic = $2 AND kafka_key = $3 AND seq < $4`,
            [place.consumer, place.topic, storedKey, moved.seq],
          );
          return { kind: 'republished', event, ahead: Number(rows[0]?.ahead ?? 0) } as const;
        } catch (error) {
          // 23505: an event of this id is pending already (its source applied again); the copy stays.
          if (sqlStateOf(error) !== '23505') throw error;
          return { kind: 'changed', event, detail: 'an event with its id is pending already' } as const;
        }
      }
      const pending = await this.#place(client, 'outbox', id, consumer);
      if (pending === undefined) return { kind: 'unknown' };
      const { storedKey: _, ...place } = pending;
      return { kind: 'pending', event: { id, ...place } };
    });
  }

  advice(error: unknown): UserError | undefined {
    return this.#target.advice(error);
  }

  async close(): Promise<void> {
    await this.#target.connections.end();
  }

  async #place(
    client: PoolClient,
    table: 'outbox' | 'outbox_quarantine',
    id: string,
    consumer: string | undefined,
  ): Promise<(Omit<OutboxEventPlace, 'id'> & { readonly storedKey: string }) | undefined> {
    const row = (await client.query(this.#placeIn(table), [consumer ?? null, id])).rows[0];
    return row === undefined ? undefined : { ...placeOf(row), storedKey: String(row.kafka_key) };
  }

  #queries(nowMs?: number): OutboxRelayQueries {
    return new OutboxRelayQueries({
      schema: this.#schema,
      ...(nowMs === undefined ? {} : { clock: { nowMs: () => nowMs } }),
    });
  }

  async #withClient<T>(use: (client: PoolClient) => Promise<T>): Promise<T> {
    return withPooledClient(await this.#target.connections.connect(), use);
  }
}

function placeOf(row: Record<string, unknown>): Omit<OutboxEventPlace, 'id'> {
  return {
    consumer: String(row.consumer),
    topic: String(row.topic),
    key: keyOfStored(String(row.kafka_key)),
  };
}
