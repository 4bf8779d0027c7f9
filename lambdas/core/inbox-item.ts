/**
 * The inbox item layout (docs/design.md#the-inbox-item): one table, shared by several consumers.
 * Dedup rows are keyed `<consumer>#<dedupKey>`; quarantine rows `<consumer>!quarantine#<topic>-<partition>@<offset>`.
 * Consumer names may not contain `#` or `!`, so the two kinds of key can never collide.
 */
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
} as const;

export const INBOX_STATUS = {
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  quarantined: 'QUARANTINED',
} as const;

export type InboxStatus = (typeof INBOX_STATUS)[keyof typeof INBOX_STATUS];

/** Sparse global secondary index listing a consumer's QUARANTINED rows, newest last. */
export const QUARANTINE_INDEX = {
  name: 'quarantine',
  partitionKey: INBOX_ATTRIBUTES.quarantineConsumer,
  sortKey: INBOX_ATTRIBUTES.quarantinedAt,
} as const;

/**
 * Whether a dedup row counts as absent: its `expires_at` (epoch seconds) is before now. TTL deletion is
 * lazy, so an expired row can still be read; the claim condition (dynamodb-inbox-store.ts, CLAIMABLE:
 * `expires_at < :nowSeconds`) takes it as free, and so must anyone who reads a row to judge it
 * (docs/design.md#the-claim-condition).
 */
export function isExpired(row: Readonly<Record<string, unknown>>, nowSeconds: number): boolean {
  const expiresAt = row[INBOX_ATTRIBUTES.expiresAt];
  return typeof expiresAt === 'number' && expiresAt < nowSeconds;
}

/** Kafka's default retention: redeliveries can come that late, so the dedup window defaults to it. */
export const DEFAULT_DEDUP_TTL_SECONDS = 604_800;

export const CONSUMER_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

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
  return `${consumerRowPrefix(consumer)}quarantine#${coordinates}`;
}
