/**
 * Group commit: consecutive records of one lane whose plans are transactional commit together, their inbox
 * rows and writes in one TransactWriteItems, so a partition's throughput is no longer one record per round
 * trip. Each record stays atomic and keeps its own outcome (the store settles a cancelled group member by
 * member). A group is cut where DynamoDB would refuse it or where waiting could deadlock:
 * - at `TRANSACT_GROUP_MAX_RECORDS` records, 100 actions or about 4 MB (docs/aws-facts.md);
 * - before a record that would touch an item already in the group (DynamoDB refuses two actions on one
 *   item in a transaction; and a later record's conditions must see the earlier record's writes);
 * - before a copy of a key whose first copy is not settled, and before a side-effect record.
 * The deadline is checked before each record and again after each commit that came before it, as when
 * records run one by one. After a group with a reported record nothing more is started: the scheduler
 * reports the rest.
 */
import { type BatchProcessorOptions, type BatchState, deadlineNear } from './batch-context.js';
import type { DecodedRecord } from './decode-event.js';
import type { EffectWrite } from './effect.js';
import { outboxAppendBytes } from './outbox-appends.js';
import { isApplied, isReported, type RecordOutcome } from './outcome.js';
import { failed, outcome } from './record-outcome.js';
import { type Prepared, prepareRecord } from './record-preparation.js';
import { commitOutcome } from './record-settlement.js';

/** DynamoDB's limits on one TransactWriteItems (docs/aws-facts.md). */
const TRANSACTION_LIMITS = { actions: 100, bytes: 4 * 1024 * 1024 } as const;
/** Room kept under 4 MB: sizes are estimated from the request's JSON, not DynamoDB's own accounting. */
const BYTES_BUDGET = TRANSACTION_LIMITS.bytes - 256 * 1024;
/** An inbox row's bytes besides its source and hash: a generous bound. */
const INBOX_ROW_BYTES = 2_048;

type Member = Extract<Prepared, { kind: 'commit' }>;

/**
 * Runs records of one lane in offset order, committing transactional ones in groups; returns the outcomes
 * of a prefix (records it did not start go back to the scheduler).
 */
export async function runLaneRecords(
  records: readonly DecodedRecord[],
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome[]> {
  const outcomes: (RecordOutcome | Member)[] = [];
  const group = new OpenGroup(options.transactGroupMaxRecords ?? 1);
  /** Commits the open group; false when one of its records was reported (nothing more starts). */
  const flush = async (): Promise<boolean> => {
    const members = group.close();
    if (members.length === 0) return true;
    const settled = await commitMembers(members, options, state);
    settled.forEach((result, index) => {
      outcomes[outcomes.indexOf(members[index] as Member)] = result;
    });
    return !settled.some((result) => isReported(result.status));
  };

  /**
   * Commits the open group before a prepared record that cannot join it; the record's outcome when it must
   * not start after all: a record of the group was reported, or the commit ran into the deadline margin
   * (as when a record starts after the one before it finished).
   */
  const flushBefore = async (
    prepared: { readonly settle: (outcome: RecordOutcome) => RecordOutcome },
    record: DecodedRecord,
  ): Promise<RecordOutcome | undefined> => {
    if (!(await flush())) return prepared.settle(notStartedAfterFailure(record));
    if (deadlineNear(options)) return prepared.settle(deferred(record));
    return undefined;
  };
  for (const [index, record] of records.entries()) {
    // The scheduler checked the deadline for the first record; later ones are checked here.
    if (index > 0 && deadlineNear(options)) break;
    let prepared = await prepareRecord(record, options, state, !group.empty);
    if (prepared.kind === 'wait-for-first-copy') {
      if (!(await flush()) || deadlineNear(options)) break;
      prepared = await prepareRecord(record, options, state, false);
      // With no group open a copy waits for its first copy inside prepareRecord.
      if (prepared.kind === 'wait-for-first-copy') throw new Error('a copy waited with no group open');
    }
    if (prepared.kind === 'settled') {
      if (isApplied(prepared.outcome.status)) state.refusals.applied();
      outcomes.push(prepared.outcome);
      if (isReported(prepared.outcome.status)) break;
      continue;
    }
    if (prepared.kind === 'run-alone') {
      const stopped = await flushBefore(prepared, record);
      if (stopped) {
        outcomes.push(stopped);
        break;
      }
      const result = await prepared.run();
      if (isApplied(result.status)) state.refusals.applied();
      outcomes.push(result);
      if (isReported(result.status)) break;
      continue;
    }
    if (!group.fits(prepared)) {
      const stopped = await flushBefore(prepared, record);
      if (stopped) {
        outcomes.push(stopped);
        break;
      }
    }
    group.add(prepared);
    outcomes.push(prepared);
  }
  await flush();
  return outcomes.map((entry) => ('kind' in entry ? notStartedAfterFailure(entry.record) : entry));
}

function deferred(record: DecodedRecord): RecordOutcome {
  return outcome(record, 'deferred', { reason: 'deadline', detail: 'the invocation deadline is near' });
}

/** A record prepared while a record before it was reported: not started, it comes back with the redelivery. */
function notStartedAfterFailure(record: DecodedRecord): RecordOutcome {
  return outcome(record, 'blocked', {
    reason: 'not-started',
    detail: 'a record before it in the partition was reported',
  });
}

async function commitMembers(
  members: readonly Member[],
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome[]> {
  let results: Awaited<ReturnType<BatchProcessorOptions['store']['commitGroup']>>;
  try {
    // A group that must go again (a resend, or one by one) starts no request within the deadline margin.
    results = await options.store.commitGroup(members, { mayContinue: () => !deadlineNear(options) });
  } catch (error) {
    return members.map((member) => member.settle(failed(member.record, error)));
  }
  const outcomes: RecordOutcome[] = [];
  // In order: a refusal streak (rejectedByStore) counts records as they come.
  for (const [index, member] of members.entries()) {
    const result = results[index];
    const settled = result
      ? await commitOutcome(member.record, member.entry.dedupKey, result, options, state).catch(
          (error: unknown) => failed(member.record, error),
        )
      : failed(member.record, new Error('the store gave no answer for this record'));
    if (isApplied(settled.status)) state.refusals.applied();
    outcomes.push(member.settle(settled));
  }
  return outcomes;
}

/** The records waiting to commit together, and what they already hold of one transaction. */
/** What one record's commit takes of a transaction; worked out once per record. */
interface Footprint {
  readonly items: readonly string[];
  readonly actions: number;
  readonly bytes: number;
}

class OpenGroup {
  readonly #maxRecords: number;
  #members: Member[] = [];
  #items = new Set<string>();
  #actions = 0;
  #bytes = 0;
  /** The footprint `fits` worked out, for the `add` that follows it. */
  #last: { readonly member: Member; readonly footprint: Footprint } | undefined;

  constructor(maxRecords: number) {
    this.#maxRecords = maxRecords;
  }

  get empty(): boolean {
    return this.#members.length === 0;
  }

  fits(member: Member): boolean {
    if (this.empty) return true;
    if (this.#members.length >= this.#maxRecords) return false;
    if (this.#actions + 1 + member.writes.length > TRANSACTION_LIMITS.actions) return false;
    const footprint = this.#footprint(member);
    if (this.#bytes + footprint.bytes > BYTES_BUDGET) return false;
    return footprint.items.every((item) => !this.#items.has(item));
  }

  add(member: Member): void {
    const footprint = this.#footprint(member);
    this.#members.push(member);
    for (const item of footprint.items) this.#items.add(item);
    this.#actions += footprint.actions;
    this.#bytes += footprint.bytes;
    this.#last = undefined;
  }

  close(): Member[] {
    const members = this.#members;
    this.#members = [];
    this.#items = new Set();
    this.#actions = 0;
    this.#bytes = 0;
    return members;
  }

  #footprint(member: Member): Footprint {
    if (this.#last?.member === member) return this.#last.footprint;
    const footprint = footprintOf(member);
    this.#last = { member, footprint };
    return footprint;
  }
}

/**
 * The items a record's commit touches (its inbox row, and each write's table and key) and its size. A Put
 * names no key apart from its item, so its identity is the item's `pk` and `sk` where present, else the
 * whole item; a collision missed that way is refused by DynamoDB, and the store then commits the group one
 * by one.
 */
function footprintOf(member: Member): Footprint {
  const items = [`inbox\u0000${member.entry.dedupKey}`];
  let bytes = INBOX_ROW_BYTES + Buffer.byteLength(member.entry.source);
  for (const write of member.writes) {
    items.push(itemOf(write));
    // An outbox append knows its size: its values may be bytes, which JSON would swell.
    bytes += outboxAppendBytes(write) ?? Buffer.byteLength(jsonText(write));
  }
  return { items, actions: 1 + member.writes.length, bytes };
}

function itemOf(write: EffectWrite): string {
  if ('Put' in write) {
    const { TableName, Item } = write.Put;
    const key = 'pk' in Item ? { pk: Item.pk, sk: Item.sk } : Item;
    return `${TableName}\u0000${keyText(key)}`;
  }
  const target = 'Update' in write ? write.Update : 'Delete' in write ? write.Delete : write.ConditionCheck;
  return `${target.TableName}\u0000${keyText(target.Key)}`;
}

/** A key's attributes in name order, so one key written in two orders is one item. */
function keyText(key: Readonly<Record<string, unknown>>): string {
  return Object.keys(key)
    .filter((name) => key[name] !== undefined)
    .sort()
    .map((name) => `${name}=${jsonText(key[name])}`)
    .join('\u0001');
}

/** JSON that takes what the DocumentClient writes: a bigint (exact numbers) as its digits. */
function jsonText(value: unknown): string {
  return (
    JSON.stringify(value, (_, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? ''
  );
}
