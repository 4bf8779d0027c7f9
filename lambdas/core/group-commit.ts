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
import type { CommitGroupOptions, CommitResult, InboxStore } from './inbox-store.js';
import { isApplied, isReported, type RecordOutcome } from './outcome.js';
import { failed, outcome } from './record-outcome.js';
import { type CommitPrepared, prepareRecord } from './record-preparation.js';
import { commitOutcome } from './record-settlement.js';
import { OpenGroup } from './transaction-group.js';

type Member = CommitPrepared;

/**
 * How a lane's writes reach the store: straight to it (`directWrites`), or, under per-key ordering, through
 * the partition's cross-key window (cross-key-commit.ts), which gathers the groups of several lanes into
 * one transaction.
 */
export interface LaneWrites {
  /** Answers as `InboxStore.commitGroup` would for these members alone. */
  commitGroup(members: readonly Member[], options: CommitGroupOptions): Promise<CommitResult[]>;
  /** Runs a record that writes on its own (a quarantine row, a side effect). */
  runAlone(run: () => Promise<RecordOutcome>): Promise<RecordOutcome>;
}

/** Each lane's group is one request of its own; each record that writes alone runs at once. */
export function directWrites(store: InboxStore): LaneWrites {
  return {
    commitGroup: (members, options) => store.commitGroup(members, options),
    runAlone: (run) => run(),
  };
}

/**
 * Runs records of one lane in offset order, committing transactional ones in groups; returns the outcomes
 * of a prefix (records it did not start go back to the scheduler).
 */
export async function runLaneRecords(
  records: readonly DecodedRecord[],
  options: BatchProcessorOptions,
  state: BatchState,
  writes: LaneWrites = directWrites(options.store),
): Promise<RecordOutcome[]> {
  const outcomes: (RecordOutcome | Member)[] = [];
  const group = new OpenGroup<Member>(options.transactGroupMaxRecords ?? 1);
  const { trace } = state;
  /** Every outcome given here ends its record's span. */
  const ended = (record: DecodedRecord, result: RecordOutcome): RecordOutcome => {
    trace.recordEnded(record, result);
    return result;
  };
  const prepare = (record: DecodedRecord, groupOpen: boolean) =>
    trace.within([record], () => prepareRecord(record, options, state, groupOpen));
  /** Commits the open group; false when one of its records was reported (nothing more starts). */
  const flush = async (): Promise<boolean> => {
    const members = group.close();
    if (members.length === 0) return true;
    const settled = await commitMembers(members, options, state, writes);
    settled.forEach((result, index) => {
      const member = members[index] as Member;
      outcomes[outcomes.indexOf(member)] = ended(member.record, result);
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
    if (!(await flush())) return ended(record, prepared.settle(notStartedAfterFailure(record)));
    if (deadlineNear(options)) return ended(record, prepared.settle(deferred(record)));
    return undefined;
  };
  for (const [index, record] of records.entries()) {
    // The scheduler checked the deadline for the first record; later ones are checked here.
    if (index > 0 && deadlineNear(options)) break;
    trace.recordStarted(record);
    let prepared = await prepare(record, !group.empty);
    if (prepared.kind === 'wait-for-first-copy') {
      if (!(await flush()) || deadlineNear(options)) break;
      prepared = await prepare(record, false);
      // With no group open a copy waits for its first copy inside prepareRecord.
      if (prepared.kind === 'wait-for-first-copy') throw new Error('a copy waited with no group open');
    }
    if (prepared.kind === 'settled') {
      if (isApplied(prepared.outcome.status)) state.refusals.applied();
      outcomes.push(ended(record, prepared.outcome));
      if (isReported(prepared.outcome.status)) break;
      continue;
    }
    if (prepared.kind === 'run-alone') {
      const stopped = await flushBefore(prepared, record);
      if (stopped) {
        outcomes.push(stopped);
        break;
      }
      const run = prepared.run;
      const result = await writes.runAlone(() => trace.within([record], run));
      if (isApplied(result.status)) state.refusals.applied();
      outcomes.push(ended(record, result));
      if (isReported(result.status)) break;
      continue;
    }
    if (!group.fits([prepared])) {
      const stopped = await flushBefore(prepared, record);
      if (stopped) {
        outcomes.push(stopped);
        break;
      }
    }
    group.add([prepared]);
    outcomes.push(prepared);
  }
  await flush();
  return outcomes.map((entry) =>
    'kind' in entry ? ended(entry.record, notStartedAfterFailure(entry.record)) : entry,
  );
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
  writes: LaneWrites,
): Promise<RecordOutcome[]> {
  let results: CommitResult[];
  try {
    // A group that must go again (a resend, or one by one) starts no request within the deadline margin.
    results = await state.trace.within(
      members.map((member) => member.record),
      () => writes.commitGroup(members, { mayContinue: () => !deadlineNear(options) }),
    );
  } catch (error) {
    return members.map((member) => member.settle(failed(member.record, error)));
  }
  const outcomes: RecordOutcome[] = [];
  // In order: a refusal streak (rejectedByStore) counts records as they come.
  for (const [index, member] of members.entries()) {
    const result = results[index];
    // Its own requests (a quarantine row, a lookup) are the record's, after the group's transaction.
    const settled = result
      ? await state.trace
          .within([member.record], () =>
            commitOutcome(member.record, member.entry.dedupKey, result, options, state),
          )
          .catch((error: unknown) => failed(member.record, error))
      : failed(member.record, new Error('the store gave no answer for this record'));
    if (isApplied(settled.status)) state.refusals.applied();
    outcomes.push(member.settle(settled));
  }
  return outcomes;
}
