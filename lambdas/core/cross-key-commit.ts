/**
 * Group commit across keys, for per-key ordering (docs/design.md#group-commit-across-keys). A key's records
 * usually touch the key's own items, so a lane's group (group-commit.ts) is cut after every record: alone,
 * each lane would send one transaction per record. Here the groups that the lanes of one partition have
 * ready are gathered into shared transactions instead:
 * - Order: a lane hands in its group and waits for its answer before it prepares its next record, so a
 *   key's next record is never in the same transaction as (or in one before) the one before it.
 * - Atomicity: a shared transaction goes through `InboxStore.commitGroup`, whose members are each atomic
 *   and settled one by one when DynamoDB cancels the transaction (reasons per action, the blameless ones
 *   sent again). Its members are in offset order, so a member left `not-sent` after one that may end
 *   reported is one the partition reports anyway (lane-scheduler.ts: nothing after a reported record).
 * - Items: no two groups of a transaction touch one item (DynamoDB refuses it, and records of different
 *   keys may share one, a counter say), and no group is sent while a transaction in flight holds one of
 *   its items: it waits for that one's answer, so this partition's own transactions never conflict.
 *
 * When to send: whenever the lanes that can hand in a group have done so. A group handed in waits for the
 * end of the current turn of the event loop (setImmediate): every lane whose next record was ready without
 * I/O (its effect's plan is in memory) hands its group in within that turn, since the answer that woke
 * them resolved them all at once. Waiting longer (a timer, or until every running lane hands in) would add
 * latency or could wait on a lane that itself waits for another record's outcome (a copy of an event).
 * While a transaction is in flight, fewer than SPREAD_MIN_RECORDS records wait for its answer, which wakes
 * more lanes: so answers that come back one by one do not each start a transaction of one record. At most
 * `maxInFlight` transactions are in flight; the rest wait, gathering more groups, for a free one.
 */
import type { LaneWrites } from './group-commit.js';
import { type CommitGroupOptions, type CommitResult, type InboxStore, stopsGroup } from './inbox-store.js';
import type { RecordOutcome } from './outcome.js';
import type { CommitPrepared } from './record-preparation.js';
import type { InvocationTrace } from './telemetry/consumer-tracer.js';
import { footprintOf, OpenGroup } from './transaction-group.js';

/**
 * Whether a record may share a transaction with records of other keys: the one place that decides it. A
 * `sql` plan's items are not known (its SQL says them), so a collision could not be seen: it commits with
 * its own lane's records only.
 */
export function mayJoinCrossKeyGroup(member: CommitPrepared): boolean {
  return member.sql === undefined;
}

/**
 * Ready records are spread over several transactions in flight, each of at least this many. A transaction's
 * round trip grows with its actions (0.34 ms each beside a fixed 16 ms, as measured from Lambda: the network
 * model in docs/benchmarks.md), so two halves of a large group answer sooner than the whole; from 10 records
 * on, a transaction still costs at most 0.1 request per record, as a partition's group commit does.
 */
const SPREAD_MIN_RECORDS = 10;

export interface CrossKeyCommitOptions {
  readonly store: InboxStore;
  /** Records in one transaction at most (TRANSACT_GROUP_MAX_RECORDS). */
  readonly maxRecords: number;
  /** Transactions of the partition in flight at once (KEY_CONCURRENCY). */
  readonly maxInFlight: number;
  /** False once nothing may start: the invocation's deadline is near. */
  readonly mayStart: () => boolean;
  /** The transaction's requests are the spans of all its records, not of the lane that woke the send. */
  readonly trace: InvocationTrace;
}

interface HandedIn {
  readonly members: readonly CommitPrepared[];
  readonly options: CommitGroupOptions;
  readonly resolve: (results: CommitResult[]) => void;
  readonly reject: (error: unknown) => void;
}

/** One partition's window: lanes hand in their groups, and it sends them in shared transactions. */
export class CrossKeyCommitWindow implements LaneWrites {
  readonly #options: CrossKeyCommitOptions;
  #waiting: HandedIn[] = [];
  /** Items of the transactions in flight. */
  readonly #held = new Set<string>();
  #inFlight = 0;
  #boundedRunning = 0;
  readonly #boundedQueue: (() => void)[] = [];
  #sendScheduled = false;
  /**
   * The lowest offset whose answer may leave it reported: nothing after it is sent, as the lane scheduler
   * starts nothing after a reported record. Lanes woken by the same answer may hand in a next record before
   * the scheduler has heard of the report; this catches those.
   */
  #stopOffset = Number.POSITIVE_INFINITY;

  constructor(options: CrossKeyCommitOptions) {
    this.#options = options;
  }

  commitGroup(members: readonly CommitPrepared[], options: CommitGroupOptions): Promise<CommitResult[]> {
    if (!members.every(mayJoinCrossKeyGroup)) {
      return this.#bounded(() => this.#options.store.commitGroup(members, options));
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ members, options, resolve, reject });
      this.#scheduleSend();
    });
  }

  runAlone(run: () => Promise<RecordOutcome>): Promise<RecordOutcome> {
    return this.#bounded(run);
  }

  /**
   * Work that shares no transaction (a record that writes alone, a lane's group that may not join others)
   * keeps KEY_CONCURRENCY's bound: more lanes run at once than without grouping (batch-processor.ts), and
   * a side effect or a SQL store's connection pool must not see that many requests at once.
   */
  async #bounded<T>(run: () => Promise<T>): Promise<T> {
    if (this.#boundedRunning >= this.#options.maxInFlight) {
      await new Promise<void>((resolve) => this.#boundedQueue.push(resolve));
    } else {
      this.#boundedRunning += 1;
    }
    try {
      return await run();
    } finally {
      // The slot passes straight to the next waiting one, or is freed.
      const next = this.#boundedQueue.shift();
      if (next) next();
      else this.#boundedRunning -= 1;
    }
  }

  #scheduleSend(): void {
    if (this.#sendScheduled) return;
    this.#sendScheduled = true;
    setImmediate(() => {
      this.#sendScheduled = false;
      this.#send();
    });
  }

  /**
   * Sends what waits, in offset order: spread over the free transaction slots (SPREAD_MIN_RECORDS), a group
   * that touches an item of a transaction in flight left for later, and fewer than SPREAD_MIN_RECORDS
   * records left waiting while a transaction is in flight (its answer wakes lanes that join them).
   */
  #send(): void {
    if (!this.#options.mayStart()) {
      // Nothing starts within the deadline margin: what waits is deferred, as a record not started.
      for (const handedIn of this.#waiting.splice(0)) {
        handedIn.resolve(handedIn.members.map(() => ({ kind: 'not-sent', reason: 'deadline' })));
      }
      return;
    }
    this.#waiting = this.#waiting.filter((handedIn) => {
      if (firstOffset(handedIn) < this.#stopOffset) return true;
      handedIn.resolve(handedIn.members.map(() => ({ kind: 'not-sent' })));
      return false;
    });
    this.#waiting.sort((a, b) => firstOffset(a) - firstOffset(b));
    const records = this.#waiting.reduce((sum, handedIn) => sum + handedIn.members.length, 0);
    // A small group waits while a transaction is in flight: the lanes its answer wakes join it.
    if (this.#inFlight > 0 && records < SPREAD_MIN_RECORDS) return;
    const slots = this.#options.maxInFlight - this.#inFlight;
    // Spread over as many transactions as keep SPREAD_MIN_RECORDS in each, up to the free slots.
    const spread = Math.max(1, Math.min(slots, Math.floor(records / SPREAD_MIN_RECORDS)));
    const perGroup = Math.min(this.#options.maxRecords, Math.ceil(records / spread));
    while (this.#inFlight < this.#options.maxInFlight && this.#waiting.length > 0) {
      const group = new OpenGroup<CommitPrepared>(perGroup);
      const taken: HandedIn[] = [];
      const left: HandedIn[] = [];
      for (const handedIn of this.#waiting) {
        if (!this.#touchesHeld(handedIn) && group.fits(handedIn.members)) {
          group.add(handedIn.members);
          taken.push(handedIn);
        } else {
          left.push(handedIn);
        }
      }
      if (taken.length === 0) return;
      this.#waiting = left;
      this.#commit(taken, [...group.items]);
    }
  }

  #stopAt(member: CommitPrepared): void {
    this.#stopOffset = Math.min(this.#stopOffset, offsetOf(member));
  }

  #touchesHeld(handedIn: HandedIn): boolean {
    return handedIn.members.some((member) => footprintOf(member).items.some((item) => this.#held.has(item)));
  }

  #commit(taken: readonly HandedIn[], items: readonly string[]): void {
    for (const item of items) this.#held.add(item);
    this.#inFlight += 1;
    const members = taken.flatMap((handedIn) => handedIn.members).sort((a, b) => offsetOf(a) - offsetOf(b));
    // Every lane in it asked the same of a resend: nothing within the deadline margin.
    const options = taken[0]?.options ?? {};
    this.#options.trace
      .within(
        members.map((member) => member.record),
        () => this.#options.store.commitGroup(members, options),
      )
      .then(
        (results) => {
          const byMember = new Map(members.map((member, index) => [member, results[index]]));
          members.forEach((member, index) => {
            const result = results[index];
            if (result === undefined || stopsGroup(result) || result.kind === 'not-sent')
              this.#stopAt(member);
          });
          for (const handedIn of taken) {
            handedIn.resolve(
              // A member the store left unanswered is failed where its answer is read (group-commit.ts).
              handedIn.members.map((member) => byMember.get(member) as CommitResult),
            );
          }
        },
        (error: unknown) => {
          // Every member is reported.
          for (const member of members) this.#stopAt(member);
          for (const handedIn of taken) handedIn.reject(error);
        },
      )
      .finally(() => {
        for (const item of items) this.#held.delete(item);
        this.#inFlight -= 1;
        // Not at once: the lanes this answer wakes hand in their next groups within this turn.
        this.#scheduleSend();
      });
  }
}

function offsetOf(member: CommitPrepared): number {
  // A record without a usable offset is quarantined, never committed: this bound only keeps the sort total.
  return member.record.offset ?? Number.MAX_SAFE_INTEGER;
}

function firstOffset(handedIn: HandedIn): number {
  return Math.min(...handedIn.members.map(offsetOf));
}
