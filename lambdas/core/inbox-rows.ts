/**
 * Every row of the inbox table, named once (docs/design.md#the-inbox-item): one table, shared by several
 * consumers, holding four kinds of row, each keyed under its consumer's name:
 *
 * - dedup rows, `<consumer>#<dedupKey>`: written by the engine, one per applied (or claimed) event;
 * - quarantine rows, `<consumer>!quarantine#<topic-partition@offset>`: written by the engine, dealt with
 *   by an operator (quarantine-row.ts reads and writes them);
 * - replaying rows, `<consumer>!replaying#<id>`: a quarantine row moved aside while `msk-inbox` replays it;
 * - failed-batch rows, `<consumer>!failed-batch#<object name>`: `msk-inbox`'s log of a batch's replays.
 *
 * Consumer names may contain neither `#` nor `!`, so no two kinds of key can collide, and the operators'
 * IAM policy grants the `<consumer>!` rows only (consumerRowPrefix). Every attribute and every status any
 * of them holds is here, so the engine and the operator tool read and write the same names.
 */

/** The attributes of dedup and quarantine rows, as the engine writes them. */
export const INBOX_ATTRIBUTES = {
  pk: 'pk',
  status: 'status',
  /** Epoch seconds; the table's TTL attribute. */
  expiresAt: 'expires_at',
  leaseOwner: 'lease_owner',
  /** Epoch milliseconds. */
  leaseUntil: 'lease_until',
  payloadHash: 'payload_hash',
  source: 'source',
  completedAt: 'completed_at',
  /** The attempt token that completed a claimed row, so a retry of that completion is recognised. */
  completedBy: 'completed_by',
  reason: 'reason',
  error: 'error',
  record: 'record',
  /** Present only on quarantine rows: the sparse index's partition key. */
  quarantineConsumer: 'quarantine_consumer',
  /** Epoch milliseconds; present only on quarantine rows: the sparse index's sort key. */
  quarantinedAt: 'quarantined_at',
  /**
   * Quarantine rows: the dedup key the consumer derived for the record (absent where it derived none), so
   * a replay judges by the consumer's own key, whatever settings the operator's shell holds.
   */
  dedupKey: 'dedup_key',
  /** Quarantine rows: the consumer's dedup window (seconds) when it quarantined the record. */
  dedupTtlSeconds: 'dedup_ttl_seconds',
} as const;

/** What the operator tool adds to a quarantine row (docs/operate.md). */
export const OPERATOR_ATTRIBUTES = {
  replayedAt: 'replayed_at',
  replayOutcome: 'replay_outcome',
  replayAttempts: 'replay_attempts',
  replayDetail: 'replay_detail',
  /** The quarantined_at of a row taken out of the index, kept for audit. */
  quarantinedSince: 'quarantined_since',
  /** The reason before a replay quarantined the record again. */
  previousReason: 'previous_reason',
  discardedAt: 'discarded_at',
  discardedBy: 'discarded_by',
  discardReason: 'discard_reason',
} as const;

/** The attributes of a failed-batch row (operator/failed-batches/replay-log.ts reads and writes them). */
export const FAILED_BATCH_ATTRIBUTES = {
  objectKey: 'object_key',
  replayAttempts: 'replay_attempts',
  firstReplayedAt: 'first_replayed_at',
  replayedAt: 'replayed_at',
  replayedBy: 'replayed_by',
  counts: 'replay_counts',
  runs: 'replay_runs',
  notes: 'replay_notes',
} as const;

/** A dedup row's statuses, and a quarantine row's while it is in the index. */
export const INBOX_STATUS = {
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  quarantined: 'QUARANTINED',
} as const;

export type InboxStatus = (typeof INBOX_STATUS)[keyof typeof INBOX_STATUS];

/** Statuses a quarantine row takes once an operator has dealt with it: it is then out of the index. */
export const OPERATOR_STATUS = { resolved: 'RESOLVED', discarded: 'DISCARDED' } as const;

export type QuarantineRowStatus =
  | typeof INBOX_STATUS.quarantined
  | (typeof OPERATOR_STATUS)[keyof typeof OPERATOR_STATUS];

/** Sparse global secondary index listing a consumer's QUARANTINED rows, newest last. */
export const QUARANTINE_INDEX = {
  name: 'quarantine',
  partitionKey: INBOX_ATTRIBUTES.quarantineConsumer,
  sortKey: INBOX_ATTRIBUTES.quarantinedAt,
} as const;

/** Kafka's default retention: redeliveries can come that late, so the dedup window defaults to it. */
export const DEFAULT_DEDUP_TTL_SECONDS = 604_800;

export const CONSUMER_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export type RowKind = 'dedup' | 'quarantine' | 'replaying' | 'failed-batch';

/** The word after `<consumer>!` naming each kind of operator-side row. */
const CONSUMER_ROW_WORDS = {
  quarantine: 'quarantine',
  replaying: 'replaying',
  'failed-batch': 'failed-batch',
} as const satisfies Record<Exclude<RowKind, 'dedup'>, string>;

export function dedupRowKey(consumer: string, dedupKey: string): string {
  return `${consumer}#${dedupKey}`;
}

/**
 * Every row of a consumer that is not a dedup row (its quarantine rows, the operator tool's) starts with
 * this; a dedup row starts with `<consumer>#`. The operators' IAM policy relies on the two prefixes.
 */
export function consumerRowPrefix(consumer: string): string {
  return `${consumer}!`;
}

export function quarantineRowKey(consumer: string, coordinates: string): string {
  return `${consumerRowPrefix(consumer)}${CONSUMER_ROW_WORDS.quarantine}#${coordinates}`;
}

/**
 * Where a quarantine row waits while its record is replayed: never a dedup or quarantine key, and under
 * the consumer's row prefix, which the operators' IAM policy grants (docs/operate.md#permissions).
 */
export function replayingRowKey(consumer: string, id: string): string {
  return `${consumerRowPrefix(consumer)}${CONSUMER_ROW_WORDS.replaying}#${id}`;
}

/** Where a failed batch's replays are recorded: a `<consumer>!` row, never a dedup or quarantine key. */
export function failedBatchRowKey(consumer: string, objectName: string): string {
  return `${consumerRowPrefix(consumer)}${CONSUMER_ROW_WORDS['failed-batch']}#${objectName}`;
}

/** A row key of this consumer taken apart: its kind and what follows the kind's prefix. */
export function parseRowKey(
  consumer: string,
  pk: string,
): { readonly kind: RowKind; readonly id: string } | undefined {
  const dedup = dedupRowKey(consumer, '');
  if (pk.startsWith(dedup)) return { kind: 'dedup', id: pk.slice(dedup.length) };
  for (const [kind, word] of Object.entries(CONSUMER_ROW_WORDS) as [RowKind, string][]) {
    const prefix = `${consumerRowPrefix(consumer)}${word}#`;
    if (pk.startsWith(prefix)) return { kind, id: pk.slice(prefix.length) };
  }
  return undefined;
}

/**
 * Whether a dedup row counts as absent: its `expires_at` (epoch seconds) is before now. TTL deletion is
 * lazy, so an expired row can still be read; the claim condition (dynamodb-inbox-store.ts, CLAIMABLE:
 * `expires_at < :nowSeconds`) takes it as free, and so must anyone who reads a row to judge it
 * (docs/design.md#the-claim-condition).
 */
export function isExpired(row: Pick<DedupRow, 'expiresAtSeconds'>, nowSeconds: number): boolean {
  return row.expiresAtSeconds !== undefined && row.expiresAtSeconds < nowSeconds;
}

/** A dedup row as the engine and the operator tool read it. */
export interface DedupRow {
  readonly status: typeof INBOX_STATUS.inProgress | typeof INBOX_STATUS.completed;
  readonly payloadHash: string | undefined;
  readonly leaseUntilMs: number | undefined;
  /** `topic-partition@offset` of the delivery that wrote the row. */
  readonly source: string | undefined;
  /** The row's TTL (epoch seconds), when known: a cache of completed keys must not outlive it. */
  readonly expiresAtSeconds?: number;
  /** The attempt token holding an IN_PROGRESS row. */
  readonly leaseOwner?: string;
}

/** A stored item as a dedup row; undefined when it is not one (another status, or none). */
export function readDedupRow(item: Readonly<Record<string, unknown>>): DedupRow | undefined {
  const A = INBOX_ATTRIBUTES;
  const status = item[A.status];
  if (status !== INBOX_STATUS.inProgress && status !== INBOX_STATUS.completed) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    status,
    payloadHash: text(item[A.payloadHash]),
    leaseUntilMs: number(item[A.leaseUntil]),
    source: text(item[A.source]),
    expiresAtSeconds: number(item[A.expiresAt]),
    leaseOwner: text(item[A.leaseOwner]),
  };
}
