/**
 * The inbox port. Expected outcomes are values; an exception means the store could not answer
 * (throttling after the SDK's retries, an outage) and the record is retried.
 */
import type { RawRecordView } from './decode-event.js';
import type { EffectWrite, Lease, SqlEffect } from './effect.js';
import { type DedupRow, INBOX_STATUS } from './inbox-rows.js';
import type { OutboxEmission } from './outbox-appends.js';

export interface InboxEntry {
  readonly dedupKey: string;
  readonly payloadHash: string;
  /** `topic-partition@offset` of this delivery. */
  readonly source: string;
}

/** What a failed condition found, read from ALL_OLD at no extra cost. */
export type ExistingRow = DedupRow;

export type RowConflict =
  | { readonly kind: 'duplicate'; readonly existing: ExistingRow }
  | { readonly kind: 'conflict'; readonly existing: ExistingRow }
  | { readonly kind: 'in-flight'; readonly existing: ExistingRow };

export type CommitResult =
  | { readonly kind: 'committed' }
  | RowConflict
  /** An effect's own condition failed: the business rule rejected the record. */
  | { readonly kind: 'business-rejected'; readonly writeIndex: number; readonly message: string }
  /**
   * A concurrent transaction touched the same items (or, `outbox-backlog`, a key's unpublished events are
   * at their limit until the relay catches up: docs/outbox.md#back-pressure): retry later.
   */
  | { readonly kind: 'transient'; readonly message: string; readonly reason?: 'outbox-backlog' }
  /**
   * The store refused what this record put in the request (store-failure.ts; a SQL data exception or
   * constraint violation): no retry can fix it. `reason` names the store (`dynamodb-rejected` by default).
   */
  | { readonly kind: 'rejected'; readonly message: string; readonly reason?: string }
  /** A `sql` effect threw EffectRejectedError: rolled back, to be quarantined under its reason. */
  | { readonly kind: 'effect-rejected'; readonly reason: string; readonly message: string }
  /**
   * A `sql` effect failed otherwise (a bug, a missing table of the team's, a dropped connection inside it):
   * rolled back and reported. `reason` as in outcomes (`systemic-store-error`, `effect-error`).
   */
  | { readonly kind: 'effect-failed'; readonly reason: string; readonly message: string }
  /**
   * commitGroup only: not sent, because a member before it in the group got an answer that may leave it
   * reported (in-flight, transient, rejected), and a partition's records apply in offset order; or
   * (`reason: 'deadline'`) because the group had to go again and the invocation's deadline was near.
   */
  | { readonly kind: 'not-sent'; readonly reason?: 'deadline' };

/** What the store answered for an `idempotent` plan's writes, sent without an inbox row. */
export type IdempotentResult =
  | { readonly kind: 'applied' }
  /** A write's condition failed: applied before, or superseded by a newer event. Nothing was written. */
  | { readonly kind: 'guard-failed'; readonly writeIndex: number; readonly message: string }
  /** A concurrent transaction touched the same items, or throttling: retry later. */
  | { readonly kind: 'transient'; readonly message: string }
  /** The store refused what this record put in the request (store-failure.ts): no retry can fix it. */
  | { readonly kind: 'rejected'; readonly message: string }
  /** The store keeps no DynamoDB items (Postgres, Redis): the setup's mistake, alike for every record. */
  | { readonly kind: 'unsupported'; readonly message: string };

export interface CommitGroupOptions {
  /**
   * Asked before every request after the group's first (a resend of the blameless members, a commit one
   * by one): false leaves the members still open `not-sent` with reason `deadline`.
   */
  readonly mayContinue?: () => boolean;
}

/** Answers after which a group's later members are not sent: the member may end reported. */
export function stopsGroup(result: CommitResult): boolean {
  return (
    result.kind === 'in-flight' ||
    result.kind === 'transient' ||
    result.kind === 'rejected' ||
    result.kind === 'effect-failed'
  );
}

export type ClaimResult = { readonly kind: 'claimed'; readonly lease: Lease } | RowConflict;

export interface QuarantineEntry {
  /**
   * The row's key part (quarantineKeyOf): `topic-partition@offset`, so a redelivery of the same record
   * finds the same row; a hash of the raw record when the offset is unusable.
   */
  readonly coordinates: string;
  readonly reason: string;
  readonly message: string;
  readonly record: RawRecordView;
  /** The dedup key the consumer derives for the record, where it derives one: kept for a replay. */
  readonly dedupKey?: string;
}

/** One record of a group commit: its inbox row and its effect (DynamoDB writes, or SQL on a SQL store). */
export interface CommitMember {
  readonly entry: InboxEntry;
  readonly writes: readonly EffectWrite[];
  /** A `sql` plan's work; a store that cannot run it in its transaction refuses the record as systemic. */
  readonly sql?: SqlEffect;
  /**
   * A `sql` plan's events, checked and named: the store writes them to its outbox in the member's
   * transaction (docs/outbox.md); a store without an outbox refuses the record as systemic.
   */
  readonly emits?: readonly OutboxEmission[];
}

export interface InboxStore {
  /**
   * A duplicate the store knows without asking DynamoDB (the container's cache of completed keys), so the
   * record needs neither its effect's plan nor a place in a group; undefined when it would have to ask.
   */
  knownDuplicate?(entry: InboxEntry): RowConflict | undefined;
  /** Transactional mode: the inbox row as COMPLETED plus the effect's writes (or SQL), atomically. */
  commit(entry: InboxEntry, writes: readonly EffectWrite[], sql?: SqlEffect): Promise<CommitResult>;
  /**
   * Transactional mode, several records at once: each member's result is what `commit` would answer for it
   * alone, and each member is atomic (its row with its writes); after a member whose answer `stopsGroup`,
   * the later ones that are not committed yet are `not-sent`. Members touch distinct items (the caller
   * cuts groups where two would touch one) and fit one transaction (100 actions, 4 MB). Throws, for every
   * member, when the store could not answer.
   */
  commitGroup(members: readonly CommitMember[], options?: CommitGroupOptions): Promise<CommitResult[]>;
  /**
   * An `idempotent` plan: its writes alone, no inbox row; one request. Throws when the store could not
   * answer.
   */
  applyIdempotent(writes: readonly EffectWrite[]): Promise<IdempotentResult>;
  /** Side-effect mode: an IN_PROGRESS row with a fresh attempt token, live until `leaseUntilMs`. */
  claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult>;
  /** Marks the claimed row COMPLETED, only while this attempt still holds the lease. */
  complete(lease: Lease): Promise<'completed' | 'lease-lost'>;
  /** Deletes the claimed row after a failed effect, only while this attempt still holds the lease. */
  release(lease: Lease): Promise<'released' | 'lease-lost'>;
  /** Writes a QUARANTINED row once per record; a redelivery writes nothing new. */
  quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'>;
  /** Whether the QUARANTINED row with this key part exists (a redelivery of a record decided earlier). */
  isQuarantined(coordinates: string): Promise<boolean>;
  /**
   * Deletes expired rows in bounded batches, for stores that do not expire rows themselves (DynamoDB's TTL
   * does): at most `maxRows`; `more` says some were left for the next run.
   */
  deleteExpiredRows?(maxRows: number): Promise<{ readonly deleted: number; readonly more: boolean }>;
}

/**
 * Why a claim condition failed, from the row it found. The condition already treats expired rows and
 * expired leases as absent, so what is left is a finished row (duplicate or conflict) or a live lease.
 */
export function classifyExistingRow(existing: ExistingRow, payloadHash: string): RowConflict {
  if (existing.status === INBOX_STATUS.inProgress) return { kind: 'in-flight', existing };
  if (existing.payloadHash === payloadHash) return { kind: 'duplicate', existing };
  return { kind: 'conflict', existing };
}
