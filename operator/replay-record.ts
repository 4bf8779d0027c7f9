/**
 * One quarantined record replayed, and how its outcome is told apart (docs/operate.md#replay):
 *
 * - The record goes out under its own coordinates, so the inbox dedups it as it would a redelivery: a
 *   replay of an applied record is a duplicate, whatever the number of replays.
 * - Before the invocation the row is moved aside (OperatorInbox.park), leaving its key free: a record the consumer
 *   quarantines again writes a fresh row there, with the new reason. The engine writes quarantine rows
 *   only where none is (`attribute_not_exists`), so with the old row in place it would be silent.
 * - Reported in the response (or the invocation threw): failed, the row goes back as it was.
 * - A fresh row under the key (none was there just before the invocation): quarantined again; it stays
 *   in the index with the new reason.
 * - Otherwise the dedup rows decide, under the key kept on the row and the one the settings give now
 *   (consumer-settings.ts, dedupKeysOfRow): COMPLETED only after the invocation means applied; COMPLETED
 *   before means duplicate; none means the consumer skipped it. With no key known (none on the row, none
 *   the tool can derive), the record is acked, and which of the three is not known. All leave the index,
 *   marked RESOLVED.
 * - A record older than the dedup window is not sent without --past-dedup-window (consumer-settings.ts),
 *   nor a payload-conflict record whose first copy's dedup row is gone (docs/operate.md#the-dedup-window).
 */

import {
  INBOX_ATTRIBUTES as A,
  INBOX_STATUS,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
} from '../lambdas/core/inbox-rows.js';
import type { KafkaEvent } from '../lambdas/core/kafka-event.js';
import { PAYLOAD_CONFLICT } from '../lambdas/core/outcome.js';
import type { QuarantineRow } from '../lambdas/core/quarantine-row.js';
import {
  type ConsumerSettings,
  dedupKeysOfRow,
  pastDedupWindow,
  pastDedupWindowDetail,
  settingsOfRow,
} from './consumer-settings.js';
import type { Invoke } from './local-handler.js';
import { liveDedupRow, type OperatorInbox, outOfIndex } from './operator-inbox.js';
import { replayEventOf } from './quarantined-record.js';
import type { SentOutcome } from './replay-outcomes.js';

export type ReplayOutcome =
  | 'applied'
  | 'duplicate'
  | 'skipped'
  | 'acked'
  | 'past-dedup-window'
  | 'quarantined-again'
  | 'failed'
  | 'not-replayable'
  | 'changed-meanwhile'
  | 'would-replay';

export interface ReplayResult {
  readonly id: string;
  readonly outcome: ReplayOutcome;
  readonly detail: string;
  /** The dedup key the consumer derives for the record, when it has one. */
  readonly dedupKey?: string;
}

export interface ReplayOptions {
  readonly invoke: Invoke;
  readonly settings: ConsumerSettings;
  readonly dryRun: boolean;
  /** Send records older than the dedup window too (docs/operate.md#replay). */
  readonly pastDedupWindow: boolean;
  readonly nowMs: () => number;
}

function conflictGoneDetail(dedupKey: string | undefined): string {
  const row =
    dedupKey === undefined
      ? 'the tool cannot derive its key, so it cannot see the dedup row of the copy applied first'
      : `the dedup row of the copy applied first under ${dedupKey} has expired`;
  return `quarantined as ${PAYLOAD_CONFLICT}: ${row}, so the consumer would apply this one as new (the event twice); not sent (--past-dedup-window sends it)`;
}

/** What a dry run says of a record it would send. */
export function dryRunDetail(state: DedupState): string {
  return state.appliedBefore ? 'its key is applied already: it would be a duplicate' : 'would be sent';
}

export type Judgement =
  | {
      readonly outcome: 'quarantined';
      readonly detail: string;
      /** The quarantine row the invocation wrote. */
      readonly quarantineItem: Readonly<Record<string, unknown>>;
    }
  | {
      readonly outcome: Exclude<SentOutcome, 'quarantined'>;
      readonly detail: string;
      /** The key whose dedup row the invocation completed, where it was one of several. */
      readonly dedupKey?: string;
    };

/**
 * The record's candidate dedup keys and their dedup rows as read before the replay. Usually one key; two
 * where the key kept on the quarantine row differs from the one the consumer's settings give now (a
 * policy changed, or a value that decodes since), since the replay may land under either.
 */
export interface DedupState {
  /** The first candidate: the key kept on the row where there is one. */
  readonly dedupKey: string | undefined;
  readonly keys: readonly string[];
  /** A live COMPLETED dedup row is under one of the keys. */
  readonly appliedBefore: boolean;
  /** The keys whose live dedup row was COMPLETED before the replay. */
  readonly completedBefore: ReadonlySet<string>;
  /** A live dedup row (any status, not expired) is under every key. */
  readonly rowBefore: boolean;
  /** Where the applied copy was first seen (`topic-partition@offset`). */
  readonly firstSeenAt: string | undefined;
}

/** An expired dedup row reads as none: the consumer would take its key as free (liveDedupRow). */
export async function readDedupState(
  inbox: OperatorInbox,
  keys: readonly (string | undefined)[],
  nowMs: number,
): Promise<DedupState> {
  const candidates = [...new Set(keys.filter((key): key is string => key !== undefined))];
  const rows = await Promise.all(candidates.map((key) => liveDedupRow(inbox, key, nowMs)));
  const completed = candidates.filter((_key, index) => rows[index]?.status === INBOX_STATUS.completed);
  const applied = rows.find((row) => row?.status === INBOX_STATUS.completed);
  return {
    dedupKey: candidates[0],
    keys: candidates,
    appliedBefore: applied !== undefined,
    completedBefore: new Set(completed),
    rowBefore: candidates.length > 0 && rows.every((row) => row !== undefined),
    firstSeenAt: applied === undefined ? undefined : (applied.source ?? '?'),
  };
}

/**
 * Sends a one-record event through the consumer and tells its outcome from the inbox, since every
 * outcome but `failed` is acked alike in the response (docs/operate.md#replay):
 *
 * - a quarantine row under the record's coordinates that was not there just before: quarantined. The
 *   engine writes one only where none is (`attribute_not_exists`), so a row already there stays as it
 *   was, and this needs no clock shared with the function.
 * - reported in the response, or the invocation threw: failed.
 * - otherwise the dedup row: COMPLETED before (DedupState) means duplicate, only after means applied, none
 *   means the consumer skipped it.
 */
export async function sendAndJudge(
  inbox: OperatorInbox,
  sent: { readonly coordinates: string; readonly event: KafkaEvent },
  state: DedupState,
  invoke: Invoke,
  nowMs: () => number,
): Promise<Judgement> {
  const quarantinedBefore = await inbox.quarantineRow(sent.coordinates);
  let failure: string | undefined;
  try {
    const response = await invoke(sent.event);
    if ((response?.batchItemFailures ?? []).length > 0) failure = 'reported for retry by the consumer';
  } catch (error) {
    failure = `the handler threw: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  const written =
    quarantinedBefore === undefined ? (await inbox.quarantineRow(sent.coordinates))?.item : undefined;
  if (written !== undefined) {
    const detail = `${String(written[A.reason])}: ${String(written[A.error] ?? '')}`;
    return { outcome: 'quarantined', detail, quarantineItem: written };
  }
  if (failure !== undefined) return { outcome: 'failed', detail: failure };
  // No key here (a value format this tool does not decode, a policy it was not told): the consumer acked
  // it and wrote no quarantine row, which is all that is known.
  if (state.keys.length === 0) {
    return {
      outcome: 'acked',
      detail: 'acked by the consumer: applied, a duplicate or skipped; the tool cannot derive its key here',
    };
  }
  // Applied: a key's row became COMPLETED during the invocation. An expired row left from before (the
  // consumer skipped the record) is not this replay's doing: liveDedupRow reads it as none.
  for (const key of state.keys) {
    if (state.completedBefore.has(key)) continue;
    const after = await liveDedupRow(inbox, key, nowMs());
    if (after?.status === INBOX_STATUS.completed)
      return { outcome: 'applied', detail: 'applied', dedupKey: key };
  }
  if (state.appliedBefore) {
    return { outcome: 'duplicate', detail: `already applied (first seen at ${state.firstSeenAt ?? '?'})` };
  }
  return { outcome: 'skipped', detail: 'acked without an inbox row: the consumer skips it' };
}

export async function replayRow(
  inbox: OperatorInbox,
  row: QuarantineRow,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const { id } = row;
  const rebuilt = replayEventOf(id, row.record);
  if (!rebuilt.ok)
    return { id, outcome: 'not-replayable', detail: `cannot be sent as it came: ${rebuilt.why}` };
  // Judged by what the consumer kept on the row (its key, its window), where it did.
  const settings = settingsOfRow(row, options.settings);
  const state = await readDedupState(
    inbox,
    dedupKeysOfRow(row, rebuilt.record, options.settings),
    options.nowMs(),
  );
  const keyed = state.dedupKey === undefined ? {} : { dedupKey: state.dedupKey };
  // The record was quarantined, so never applied under its coordinates; but a redelivered copy (after
  // a fix) or a producer's retry under its key may have been, and that dedup row expires: past the
  // window a replay could apply the event twice (docs/operate.md#replay).
  // No timestamp places it nowhere in the window: pastDedupWindow counts it as past.
  const timestampMs = row.record.timestamp;
  if (!options.pastDedupWindow && pastDedupWindow(timestampMs, settings, options.nowMs())) {
    const detail = pastDedupWindowDetail(timestampMs, settings);
    return { id, outcome: 'past-dedup-window', detail, ...keyed };
  }
  // A payload-conflict row exists because an earlier copy under the same key was applied; its dedup row
  // was written then and expires before this record's window ends. Without it the consumer takes the key
  // as free and applies this copy too: the event twice (docs/operate.md#the-dedup-window).
  if (!options.pastDedupWindow && row.reason === PAYLOAD_CONFLICT && !state.rowBefore) {
    return { id, outcome: 'past-dedup-window', detail: conflictGoneDetail(state.dedupKey), ...keyed };
  }
  if (options.dryRun) return { id, outcome: 'would-replay', detail: dryRunDetail(state), ...keyed };
  // A row already aside is a replay that stopped half way: this one finishes it.
  if (!row.parked && !(await inbox.park(row))) {
    return { id, outcome: 'changed-meanwhile', detail: 'the row changed while it was read: run again' };
  }
  // A row a redelivery wrote under the free key while this one was aside (a replay that stopped half way)
  // is not this invocation's: sendAndJudge does not take it for the outcome, which overwrites it below.
  const judged = await sendAndJudge(
    inbox,
    { coordinates: id, event: rebuilt.event },
    state,
    options.invoke,
    options.nowMs,
  );
  const replay = {
    [O.replayedAt]: options.nowMs(),
    [O.replayAttempts]: row.replayAttempts + 1,
  };
  if (judged.outcome === 'quarantined') {
    const detail = `quarantined again: ${judged.detail}`;
    await inbox.unpark(id, {
      ...judged.quarantineItem,
      ...replay,
      [O.replayOutcome]: 'quarantined-again',
      [O.replayDetail]: detail,
      [O.previousReason]: row.reason,
      [O.quarantinedSince]: row.quarantinedAt ?? null,
    });
    return { id, outcome: 'quarantined-again', detail, ...keyed };
  }
  if (judged.outcome === 'failed') {
    // Back in the index as it was, with the attempt counted.
    await inbox.unpark(id, {
      ...row.item,
      ...replay,
      [O.replayOutcome]: 'failed',
      [O.replayDetail]: judged.detail,
    });
    return { id, outcome: 'failed', detail: judged.detail, ...keyed };
  }
  await inbox.unpark(id, {
    ...outOfIndex(row.item),
    ...replay,
    [A.status]: OPERATOR_STATUS.resolved,
    [O.replayOutcome]: judged.outcome,
    [O.replayDetail]: judged.detail,
  });
  return {
    id,
    outcome: judged.outcome,
    detail: judged.detail,
    ...keyed,
    ...(judged.dedupKey === undefined ? {} : { dedupKey: judged.dedupKey }),
  };
}
