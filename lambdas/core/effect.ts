/**
 * What a consumer does with a record, decided per record. The engine stays free of the AWS SDK:
 * transaction items are described in the DynamoDB DocumentClient's own shape, which the store passes on.
 */
import type { DecodedRecord } from './decode-event.js';
import type { OutboxEvent } from './outbox-rows.js';

/** What every action of an effect's transaction names: its table and, optionally, a condition. */
export interface EffectWriteTarget {
  readonly TableName: string;
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>>;
  readonly ExpressionAttributeValues?: Readonly<Record<string, unknown>>;
}

/** An item's key, in the DocumentClient's shape (plain values). */
export type ItemKey = Readonly<Record<string, unknown>>;

/**
 * The key of the item a Put writes, read by the project's key convention (`pk`, and `sk` where present): a
 * Put names no key apart from its item. Undefined for an item without `pk`.
 */
export function putItemKey(item: Readonly<Record<string, unknown>>): ItemKey | undefined {
  return 'pk' in item ? { pk: item.pk, sk: item.sk } : undefined;
}

/** One action of TransactWriteItems, committed atomically with the inbox row. */
export type EffectWrite =
  | { readonly Put: EffectWriteTarget & { readonly Item: Readonly<Record<string, unknown>> } }
  | { readonly Update: EffectWriteTarget & { readonly Key: ItemKey; readonly UpdateExpression: string } }
  | { readonly Delete: EffectWriteTarget & { readonly Key: ItemKey } }
  | {
      readonly ConditionCheck: EffectWriteTarget & {
        readonly Key: ItemKey;
        readonly ConditionExpression: string;
      };
    };

/** What a `sql` effect gets: the inbox transaction's connection (the `pg` driver's client behind it). */
export interface SqlTransaction {
  /**
   * Runs one statement in the inbox transaction, `$1`-style parameters. Never COMMIT, ROLLBACK or SAVEPOINT
   * here: the store owns the transaction (a savepoint per record of a group).
   */
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
  ): Promise<SqlResult<Row>>;
}

/** What a statement returned. */
export interface SqlResult<Row> {
  /** The rows it returned (a SELECT, or RETURNING). */
  readonly rows: readonly Row[];
  /** Rows the statement inserted, updated, deleted or returned. */
  readonly rowCount: number;
}

/**
 * A `sql` plan's work: statements run in the transaction that writes the inbox row, committed or rolled back
 * with it. Throwing EffectRejectedError (a business rule) rolls this record back and quarantines it.
 */
export type SqlEffect = (sql: SqlTransaction) => Promise<void>;

/** The lease a side-effect runs under; `leaseUntilMs` is when another attempt may take over. */
export interface Lease {
  readonly dedupKey: string;
  readonly token: string;
  readonly leaseUntilMs: number;
}

/**
 * What the effect decides for a record. A record that can never succeed is not a plan: the effect (or a
 * `call`'s `run`, however deep) throws EffectRejectedError, and the record is quarantined.
 */
export type EffectPlan =
  /**
   * Transactional mode on DynamoDB: the inbox row (COMPLETED) and these writes in one TransactWriteItems,
   * with the events in `emit` appended to the outbox in the same transaction (docs/outbox.md): a relay
   * publishes them afterwards, each with a stable `event_id`, so the next consumer's inbox absorbs repeats.
   */
  | {
      readonly kind: 'transact';
      readonly writes: readonly EffectWrite[];
      /** Events for the next topics, published in this order per topic and key. Needs OUTBOX_TABLE_NAME. */
      readonly emit?: readonly OutboxEvent[];
    }
  /**
   * Transactional mode on a SQL store (`postgresInbox` from `msk-inbox/postgres`): the team's statements in
   * the database transaction that inserts the inbox row.
   */
  | {
      readonly kind: 'sql';
      readonly run: SqlEffect;
      /** Events for the next topics, inserted into the store's outbox in the same transaction. */
      readonly emit?: readonly OutboxEvent[];
    }
  /**
   * Writes that are idempotent by themselves, on DynamoDB, with no inbox row (docs/design.md#idempotent-plans):
   * one PutItem, UpdateItem or DeleteItem for a single write, a TransactWriteItems (atomic) for several.
   * Each write must change nothing when applied twice: an item the event owns (its key holds the dedup key),
   * or a condition that reads what the write changes (a version or state guard); nothing that accumulates.
   * A plan that breaks these rules is quarantined as `effect-not-idempotent`, naming the write and the fix.
   * Every condition is read as a guard: when one fails the record was applied before or is stale, and is
   * acked as a duplicate. A business rule that can reject a record belongs in a `transact` plan.
   */
  | { readonly kind: 'idempotent'; readonly writes: readonly EffectWrite[] }
  /** Side-effect mode: claim a lease, run, then complete (or release on failure), fenced by the lease token. */
  | { readonly kind: 'call'; readonly run: (lease: Lease) => Promise<void> }
  /**
   * Not for this consumer, judged on the validated event: acked, nothing written. (The `skip` option
   * judges the raw record, before the dedup key and the schema.)
   */
  | { readonly kind: 'skip'; readonly reason: string };

/**
 * The plans of a store that keeps no database's writes (`redisInbox()` from `msk-inbox/redis`): it can
 * fence a call and skip a record, never commit with a write.
 */
export type SideEffectPlan = Extract<EffectPlan, { readonly kind: 'call' | 'skip' }>;

export interface EffectInput {
  readonly record: DecodedRecord;
  readonly dedupKey: string;
}

/**
 * Decides a record's effect. Throwing EffectRejectedError quarantines the record; throwing anything else
 * means a bug or a transient fault: the record is retried.
 */
export type Effect = (input: EffectInput) => EffectPlan | Promise<EffectPlan>;

/** DynamoDB's actions per TransactWriteItems (docs/aws-facts.md). */
export const TRANSACT_WRITE_MAX_ACTIONS = 100;

/** A `transact` plan's writes: one action of the transaction is the inbox row. */
export const MAX_EFFECT_WRITES = TRANSACT_WRITE_MAX_ACTIONS - 1;
