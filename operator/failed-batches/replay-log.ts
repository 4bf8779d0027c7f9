/**
 * What was done to a failed batch, kept in the inbox beside the consumer's other operator rows (the
 * store's own part: OperatorInbox.readReplayLog and recordReplay): one row per batch, in DynamoDB
 * `<consumer>!failed-batch#<object name>` (lambdas/core/inbox-rows.ts), in Postgres a row of
 * `<schema>.failed_batch_replays`, with no TTL (an audit record). It says when
 * the batch was last replayed, by whom, how many times, and each record's outcome, compactly enough to
 * fit DynamoDB's 400 KB item limit whatever the batch (up to 10,000 records): the counts, outcomes as runs
 * of consecutive records (at most MAX_RUNS), and the details of at most MAX_NOTES records that did not end
 * acked.
 */
import { boundedString } from '../../lambdas/core/bounded-text.js';
import { FAILED_BATCH_ATTRIBUTES } from '../../lambdas/core/inbox-rows.js';
import { ACKED_OUTCOMES } from '../replay-outcomes.js';

/**
 * What one record came to in a failed-batch replay: not-sent after its partition's first failure,
 * would-replay in a dry run (which records nothing).
 */
export type BatchRecordOutcome =
  | 'applied'
  | 'duplicate'
  | 'skipped'
  | 'acked'
  | 'past-dedup-window'
  | 'quarantined'
  | 'failed'
  | 'not-sent'
  | 'not-replayable'
  | 'would-replay';

export interface BatchRecordResult {
  /** `<topic>-<partition>`. */
  readonly partition: string;
  readonly offset: number;
  readonly outcome: BatchRecordOutcome;
  readonly detail: string;
  readonly dedupKey?: string;
}

const L = FAILED_BATCH_ATTRIBUTES;

/** Runs kept at most (about 60 bytes each): the counts stay whole beyond. */
const MAX_RUNS = 2_000;
const MAX_NOTES = 50;
const NOTE_DETAIL_BYTES = 500;

export interface ReplayLog {
  readonly attempts: number;
  readonly firstReplayedAtMs: number | undefined;
  readonly replayedAtMs: number | undefined;
  readonly replayedBy: string | undefined;
  readonly counts: Readonly<Partial<Record<BatchRecordOutcome, number>>>;
  /** Consecutive records of a partition with one outcome. */
  readonly runs: readonly {
    readonly partition: string;
    readonly from: number;
    readonly to: number;
    readonly outcome: BatchRecordOutcome;
  }[];
  readonly notes: readonly {
    readonly partition: string;
    readonly offset: number;
    readonly outcome: string;
    readonly detail: string;
  }[];
}

/** One replay of a batch, as recordReplay keeps it. */
export interface BatchReplay {
  readonly atMs: number;
  readonly by: string;
  readonly results: readonly BatchRecordResult[];
}

/** A stored replay log (its attributes, or columns, named by FAILED_BATCH_ATTRIBUTES) as read. */
export function readReplayLogItem(item: Readonly<Record<string, unknown>>): ReplayLog {
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    attempts: number(item[L.replayAttempts]) ?? 0,
    firstReplayedAtMs: number(item[L.firstReplayedAt]),
    replayedAtMs: number(item[L.replayedAt]),
    replayedBy: typeof item[L.replayedBy] === 'string' ? String(item[L.replayedBy]) : undefined,
    counts: (item[L.counts] ?? {}) as ReplayLog['counts'],
    runs: (item[L.runs] ?? []) as ReplayLog['runs'],
    notes: (item[L.notes] ?? []) as ReplayLog['notes'],
  };
}

/**
 * A replay log kept as text fields (a Postgres row's columns, a Redis hash's fields): its numbers and its
 * JSON read back.
 */
export function readReplayLogText(fields: Readonly<Record<string, unknown>>): ReplayLog {
  return readReplayLogItem({
    ...fields,
    [L.replayAttempts]: Number(fields[L.replayAttempts]),
    [L.firstReplayedAt]: Number(fields[L.firstReplayedAt]),
    [L.replayedAt]: Number(fields[L.replayedAt]),
    [L.counts]: JSON.parse(String(fields[L.counts])),
    [L.runs]: JSON.parse(String(fields[L.runs])),
    [L.notes]: JSON.parse(String(fields[L.notes])),
  });
}

export function countOutcomes(
  results: readonly BatchRecordResult[],
): Partial<Record<BatchRecordOutcome, number>> {
  const counts: Partial<Record<BatchRecordOutcome, number>> = {};
  for (const { outcome } of results) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** What one replay leaves on the log, bounded whatever the batch: its counts, runs and notes. */
export function replayOutcomes(replay: BatchReplay): Pick<ReplayLog, 'counts' | 'runs' | 'notes'> {
  return {
    counts: countOutcomes(replay.results),
    runs: runsOf(replay.results),
    notes: notesOf(replay.results),
  };
}

function runsOf(results: readonly BatchRecordResult[]): ReplayLog['runs'] {
  const runs: { partition: string; from: number; to: number; outcome: BatchRecordOutcome }[] = [];
  for (const result of results) {
    const last = runs.at(-1);
    if (last !== undefined && last.partition === result.partition && last.outcome === result.outcome) {
      last.to = result.offset;
    } else {
      runs.push({
        partition: result.partition,
        from: result.offset,
        to: result.offset,
        outcome: result.outcome,
      });
    }
  }
  return runs.slice(0, MAX_RUNS);
}

function notesOf(results: readonly BatchRecordResult[]): ReplayLog['notes'] {
  return results
    .filter((result) => !ACKED_OUTCOMES.includes(result.outcome) && result.outcome !== 'not-sent')
    .slice(0, MAX_NOTES)
    .map(({ partition, offset, outcome, detail }) => ({
      partition,
      offset,
      outcome,
      detail: boundedString(detail, NOTE_DETAIL_BYTES).text,
    }));
}
