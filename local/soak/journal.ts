/**
 * The journal of what reached the store, whichever store it is: each write an attempt sent, in the order
 * the answers came back, and whether the store applied it. The invariants read it (invocation-checks.ts,
 * final-state.ts); each store's fault injection writes it (fault-injection.ts for DynamoDB,
 * postgres-fault-injection.ts for Postgres).
 */
import type { Attempt } from './attempt.js';

export type InboxOperation =
  | 'commit'
  | 'claim'
  | 'complete'
  | 'release'
  | 'quarantine'
  | 'other-write'
  | 'read';

/** A request to the store as the invariants see it: which inbox rows it writes, and how. */
export interface StoreRequest {
  readonly operation: InboxOperation;
  /** A transaction (DynamoDB's TransactWriteItems, a Postgres BEGIN ... COMMIT). */
  readonly transaction: boolean;
  /** The inbox row's key, as lambdas/core/inbox-rows.ts#dedupRowKey names it (the first one of a group commit). */
  readonly pk: string | undefined;
  /** Every inbox row the request writes: a group commit writes several. */
  readonly pks: readonly string[];
  /** The attempt token a claim writes or a completion/release is fenced on. */
  readonly token: string | undefined;
}

export interface JournalEntry {
  /** When the answer came back: the order the journal is in. */
  readonly seq: number;
  /**
   * When the request was sent. Two requests in flight at once may have been applied in either order:
   * the store applied this one somewhere between `sentSeq` and `seq`.
   */
  readonly sentSeq: number;
  readonly attempt: Attempt;
  readonly request: StoreRequest;
  /** Whether the store applied it (a failed condition or an injected fault before sending: not applied). */
  readonly applied: boolean;
  /**
   * Its connection died with it in flight (the environment crashed meanwhile): the store may have applied
   * it although no answer said so, and `applied` is false.
   */
  readonly uncertain: boolean;
}

/** Orders writes and external effects of one schedule. */
export class Sequence {
  #next = 0;
  next(): number {
    return this.#next++;
  }
}

export class Journal {
  readonly entries: JournalEntry[] = [];
  readonly #sequence: Sequence;
  constructor(sequence: Sequence) {
    this.#sequence = sequence;
  }
  /** A sequence number for a request about to be sent. */
  sending(): number {
    return this.#sequence.next();
  }
  record(
    attempt: Attempt,
    request: StoreRequest,
    applied: boolean,
    sentSeq: number,
    uncertain = false,
  ): void {
    this.entries.push({ seq: this.#sequence.next(), sentSeq, attempt, request, applied, uncertain });
  }
  applied(filter: (entry: JournalEntry) => boolean): JournalEntry[] {
    return this.entries.filter((entry) => entry.applied && filter(entry));
  }
  /** Those applied, and those whose connection died in flight: what a reader of the store may have seen. */
  maybeApplied(filter: (entry: JournalEntry) => boolean): JournalEntry[] {
    return this.entries.filter((entry) => (entry.applied || entry.uncertain) && filter(entry));
  }
}
