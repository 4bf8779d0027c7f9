/**
 * The port through which the operator's commands read and write a consumer's inbox, whichever store holds
 * it (docs/operate.md#where-it-looks): its quarantine rows, the copies a replay parks aside, its dedup rows
 * and the log of failed-batch replays. DynamoDB (dynamodb-operator-inbox.ts) and Postgres
 * (postgres-operator-inbox.ts) implement it; the rules a replay judges by (replay-record.ts) are written
 * once, over this port.
 *
 * Every write that changes a row an operator read is conditional on the row being as it was read, so two
 * operators (or an operator and the consumer) never overwrite each other silently: such a write answers
 * false instead.
 */
import {
  INBOX_ATTRIBUTES as A,
  type DedupRow,
  isExpired,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
} from '../lambdas/core/inbox-rows.js';
import type { QuarantineRow } from '../lambdas/core/quarantine-row.js';
import type { UserError } from './cli/user-error.js';
import type { BatchReplay, ReplayLog } from './failed-batches/replay-log.js';

export interface ListFilter {
  readonly reason?: string;
  readonly sinceMs?: number;
  /** Rows returned at most; the counts cover every match. */
  readonly limit?: number;
}

export interface QuarantineListing {
  readonly rows: QuarantineRow[];
  readonly countsByReason: Record<string, number>;
}

export interface Discard {
  readonly who: string;
  readonly why: string;
  readonly nowMs: number;
}

export interface OperatorInbox {
  readonly consumer: string;
  /** Where the rows are, for messages: `table inbox-orders`, `schema msk_inbox at db.example:5432/app`. */
  describe(): string;
  /**
   * The consumer's QUARANTINED rows newest first, parked copies of QUARANTINED rows among them (they stand
   * for a replay that did not finish), with the count of every match per reason.
   */
  listQuarantined(filter: ListFilter): Promise<QuarantineListing>;
  /** The row under the record's own quarantine key, whatever its status; never the parked copy. */
  quarantineRow(id: string): Promise<QuarantineRow | undefined>;
  /** The copy a replay parked aside and did not put back (its `parked` is true). */
  parkedRow(id: string): Promise<QuarantineRow | undefined>;
  /** The consumer's dedup row for a key, expired or not (liveDedupRow reads it as the consumer does). */
  dedupRow(dedupKey: string): Promise<DedupRow | undefined>;
  /**
   * Marks a QUARANTINED row DISCARDED (who, when, why) and takes it out of the listing; the row stays for
   * audit. False when the row changed since `row` was read.
   */
  discard(row: QuarantineRow, by: Discard): Promise<boolean>;
  /**
   * Parks the row for a replay, in one transaction: a copy aside (listed still, so a replay that dies half
   * way leaves the record listed) and the record's own key free, so a record quarantined again writes a
   * fresh row there with its new reason (the engine writes one only where none is). False when the row
   * changed since `row` was read, or a copy is aside already.
   */
  park(row: QuarantineRow): Promise<boolean>;
  /**
   * Puts `item` under the record's own key (absent, or the row the replay's invocation just wrote, which
   * it replaces) and drops the parked copy, in one transaction.
   */
  unpark(id: string, item: Readonly<Record<string, unknown>>): Promise<void>;
  /** What was done to a failed batch (`name`: its object's name), or undefined when never replayed. */
  readReplayLog(name: string): Promise<ReplayLog | undefined>;
  /** Records one replay of a batch: the attempt counted, its time, who, and each record's outcome. */
  recordReplay(
    batch: { readonly name: string; readonly objectKey: string },
    replay: BatchReplay,
  ): Promise<void>;
  /** The store's failure as one line with its fix, where a person can fix it; else undefined. */
  advice(error: unknown): UserError | undefined;
  /**
   * The variables a consumer on this inbox reads to reach it (`--handler` runs the consumer with them), and
   * the flag each corresponds to, so a function of another inbox is refused before anything is sent.
   */
  consumerEnvironment(): {
    readonly variables: Record<string, string>;
    readonly flags: Record<string, string>;
  };
  /** Ends its connections; the commands' runner calls it once the command is done. */
  close(): Promise<void>;
}

/**
 * The row with this id. A copy parked by a replay that did not finish comes first: replaying it finishes
 * that replay, folding in a row the record may have been quarantined under meanwhile.
 */
export async function getRow(inbox: OperatorInbox, id: string): Promise<QuarantineRow | undefined> {
  return (await inbox.parkedRow(id)) ?? (await inbox.quarantineRow(id));
}

/**
 * The dedup row as the consumer sees it at `nowMs`: an expired row (isExpired, the claim condition's own
 * test) is absent to it, though DynamoDB's TTL (or Postgres's delete-expired) removes it only later, so a
 * record under its key would be applied again (docs/design.md#the-claim-condition).
 */
export async function liveDedupRow(
  inbox: OperatorInbox,
  dedupKey: string,
  nowMs: number,
): Promise<DedupRow | undefined> {
  const row = await inbox.dedupRow(dedupKey);
  return row === undefined || isExpired(row, Math.floor(nowMs / 1_000)) ? undefined : row;
}

/** Runs `work`; a failure of the inbox's store with a known fix becomes a UserError naming it. */
export async function withInboxAdvice<T>(inbox: OperatorInbox, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw inbox.advice(error) ?? error;
  }
}

/**
 * The item without the listing's keys (DynamoDB's sparse index keys), so the row leaves the quarantine
 * listing but stays for audit, its quarantined_at kept as quarantined_since.
 */
export function outOfIndex(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [A.quarantineConsumer]: _consumer, [A.quarantinedAt]: at, ...rest } = item;
  return { ...rest, [O.quarantinedSince]: at ?? rest[O.quarantinedSince] ?? null };
}

/** A row as `discard` leaves it: DISCARDED, out of the listing, with who, when and why (docs/operate.md#discard). */
export function discardedItem(row: QuarantineRow, by: Discard): Record<string, unknown> {
  return {
    ...outOfIndex(row.item),
    [A.status]: OPERATOR_STATUS.discarded,
    [O.quarantinedSince]: row.quarantinedAt ?? null,
    [O.discardedAt]: by.nowMs,
    [O.discardedBy]: by.who,
    [O.discardReason]: by.why,
  };
}
