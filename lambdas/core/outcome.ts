/** Every record of a batch ends with exactly one outcome (docs/design.md#outcomes-of-one-record). */
export type OutcomeStatus =
  /** Effect applied, inbox row COMPLETED (an `idempotent` plan writes none). Acked. */
  | 'processed'
  /**
   * Already applied (row COMPLETED, same payload), or an earlier copy in this batch was, or an `idempotent`
   * plan's guard failed (applied before, or a newer event was: reason `guard-failed`). Acked.
   */
  | 'duplicate'
  /** Not for this consumer; nothing written. Acked. */
  | 'skipped'
  /** Can never succeed; QUARANTINED row written with the raw record. Acked. */
  | 'quarantined'
  /** Another attempt holds a live lease on the key. Reported: retried later. */
  | 'in-flight'
  /** Transient fault or effect error. Reported. */
  | 'failed'
  /** Not started: the Lambda deadline was near. Reported. */
  | 'deferred'
  /** Not started: an earlier record of its partition was reported, so order is kept. Reported. */
  | 'blocked';

/**
 * The quarantine reason of a record whose dedup key an earlier copy with another payload was applied
 * under: the operator tool refuses to replay it once that copy's dedup row is gone (docs/operate.md).
 */
export const PAYLOAD_CONFLICT = 'payload-conflict';

export interface RecordOutcome {
  readonly partitionKey: string;
  readonly offset: number | undefined;
  readonly coordinates: string;
  readonly status: OutcomeStatus;
  /** Machine-readable cause, e.g. `payload-conflict`, `missing-event-id`, `InboxStoreError`. */
  readonly reason?: string;
  /** Human-readable detail for logs; never payload bytes. */
  readonly detail?: string;
  /** A side-effect's lease was taken over before it could complete or release. */
  readonly leaseLost?: boolean;
  readonly dedupKey?: string;
  /** Quarantined records: the key part of the QUARANTINED row (`<consumer>!quarantine#<key>`). */
  readonly quarantineKey?: string;
}

const REPORTED: ReadonlySet<OutcomeStatus> = new Set(['in-flight', 'failed', 'deferred', 'blocked']);

/** Reported records are redelivered; every other outcome is final and acked. */
export function isReported(status: OutcomeStatus): boolean {
  return REPORTED.has(status);
}

/** Whether the effect is known to be applied (so a later copy of the same key is a duplicate). */
export function isApplied(status: OutcomeStatus): boolean {
  return status === 'processed' || status === 'duplicate';
}
