/**
 * What a consumer does with a record, decided per record. The engine stays free of the AWS SDK:
 * transaction items are described in the DynamoDB DocumentClient's own shape, which the store passes on.
 */
import type { DecodedRecord } from './decode-event.js';

interface WriteTarget {
  readonly TableName: string;
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>>;
  readonly ExpressionAttributeValues?: Readonly<Record<string, unknown>>;
}

type Key = Readonly<Record<string, unknown>>;

/** One action of TransactWriteItems, committed atomically with the inbox row. */
export type EffectWrite =
  | { readonly Put: WriteTarget & { readonly Item: Readonly<Record<string, unknown>> } }
  | { readonly Update: WriteTarget & { readonly Key: Key; readonly UpdateExpression: string } }
  | { readonly Delete: WriteTarget & { readonly Key: Key } }
  | { readonly ConditionCheck: WriteTarget & { readonly Key: Key; readonly ConditionExpression: string } };

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
  /** Transactional mode: the inbox row (COMPLETED) and these writes in one TransactWriteItems. */
  | { readonly kind: 'transact'; readonly writes: readonly EffectWrite[] }
  /** Side-effect mode: claim a lease, run, then complete (or release on failure), fenced by the lease token. */
  | { readonly kind: 'call'; readonly run: (lease: Lease) => Promise<void> }
  /**
   * Not for this consumer, judged on the validated event: acked, nothing written. (The `skip` option
   * judges the raw record, before the dedup key and the schema.)
   */
  | { readonly kind: 'skip'; readonly reason: string };

export interface EffectInput {
  readonly record: DecodedRecord;
  readonly dedupKey: string;
}

/**
 * Decides a record's effect. Throwing EffectRejectedError quarantines the record; throwing anything else
 * means a bug or a transient fault: the record is retried.
 */
export type Effect = (input: EffectInput) => EffectPlan | Promise<EffectPlan>;

/** DynamoDB allows 100 actions per transaction; one is the inbox row. */
export const MAX_EFFECT_WRITES = 99;
