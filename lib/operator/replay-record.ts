/**
 * One quarantined record replayed, and how its outcome is told apart (docs/operate.md#replay):
 *
 * - The record goes out under its own coordinates, so the inbox dedups it as it would a redelivery: a
 *   replay of an applied record is a duplicate, whatever the number of replays.
 * - Before the invocation the row is moved aside (parkRow), leaving its key free: a record the consumer
 *   quarantines again writes a fresh row there, with the new reason. The engine writes quarantine rows
 *   only where none is (`attribute_not_exists`), so with the old row in place it would be silent.
 * - Reported in the response (or the invocation threw): failed, the row goes back as it was.
 * - A fresh row under the key (written since the invocation began): quarantined again; it stays in the
 *   index with the new reason.
 * - Otherwise the dedup row decides: COMPLETED before the replay means duplicate; COMPLETED only after it
 *   means applied; none means the consumer skipped it. All three leave the index, marked RESOLVED.
 */
import type { DedupKeyPolicy } from '../../lambdas/core/dedup-key.js';
import { INBOX_ATTRIBUTES as A, INBOX_STATUS, quarantineRowKey } from '../../lambdas/core/inbox-item.js';
import type { Invoke } from './local-handler.js';
import {
  dedupRow,
  getItem,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
  outOfIndex,
  parkRow,
  type QuarantineRow,
  type QuarantineTarget,
  unparkRow,
} from './quarantine-table.js';
import { dedupKeyOf, replayEventOf } from './quarantined-record.js';

export type ReplayOutcome =
  | 'applied'
  | 'duplicate'
  | 'skipped'
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
  readonly policy: DedupKeyPolicy;
  readonly dryRun: boolean;
  readonly nowMs: () => number;
}

export async function replayRow(
  target: QuarantineTarget,
  row: QuarantineRow,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const { id } = row;
  const rebuilt = replayEventOf(id, row.record);
  if (!rebuilt.ok)
    return { id, outcome: 'not-replayable', detail: `cannot be sent as it came: ${rebuilt.why}` };
  const dedupKey = dedupKeyOf(rebuilt.record, options.policy);
  const keyed = dedupKey === undefined ? {} : { dedupKey };
  const before = dedupKey === undefined ? undefined : await dedupRow(target, dedupKey);
  const appliedBefore = before?.[A.status] === INBOX_STATUS.completed;
  if (options.dryRun) {
    const detail = appliedBefore ? 'its key is applied already: it would be a duplicate' : 'would be sent';
    return { id, outcome: 'would-replay', detail, ...keyed };
  }
  // A row already aside is a replay that stopped half way: this one finishes it.
  if (!row.parked && !(await parkRow(target, row))) {
    return { id, outcome: 'changed-meanwhile', detail: 'the row changed while it was read: run again' };
  }

  let failure: string | undefined;
  const invokedAtMs = options.nowMs();
  try {
    const response = await options.invoke(rebuilt.event);
    if ((response?.batchItemFailures ?? []).length > 0) failure = 'reported for retry by the consumer';
  } catch (error) {
    failure = `the handler threw: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  const replay = {
    [O.replayedAt]: options.nowMs(),
    [O.replayAttempts]: row.replayAttempts + 1,
  };
  // Only a row this invocation wrote: one from before it came from a redelivery while the row was aside
  // (a replay that stopped half way), and is overwritten below like the row it stands for.
  const written = await getItem(target, quarantineRowKey(target.consumer, id));
  const fresh = Number(written?.[A.quarantinedAt]) >= invokedAtMs ? written : undefined;
  if (fresh !== undefined) {
    const detail = `quarantined again: ${String(fresh[A.reason])}: ${String(fresh[A.error] ?? '')}`;
    await unparkRow(target, id, {
      ...fresh,
      ...replay,
      [O.replayOutcome]: 'quarantined-again',
      [O.replayDetail]: detail,
      [O.previousReason]: row.reason,
      [O.quarantinedSince]: row.quarantinedAt ?? null,
    });
    return { id, outcome: 'quarantined-again', detail, ...keyed };
  }
  if (failure !== undefined) {
    // Back in the index as it was, with the attempt counted.
    await unparkRow(target, id, {
      ...row.item,
      ...replay,
      [O.replayOutcome]: 'failed',
      [O.replayDetail]: failure,
    });
    return { id, outcome: 'failed', detail: failure, ...keyed };
  }
  const after = dedupKey === undefined ? undefined : await dedupRow(target, dedupKey);
  const outcome: ReplayOutcome = appliedBefore
    ? 'duplicate'
    : after?.[A.status] === INBOX_STATUS.completed
      ? 'applied'
      : 'skipped';
  const detail =
    outcome === 'duplicate'
      ? `already applied (first seen at ${String(before?.[A.source] ?? '?')})`
      : outcome === 'applied'
        ? 'applied'
        : 'acked without an inbox row: the consumer skips it';
  await unparkRow(target, id, {
    ...outOfIndex(row.item),
    ...replay,
    [A.status]: OPERATOR_STATUS.resolved,
    [O.replayOutcome]: outcome,
    [O.replayDetail]: detail,
  });
  return { id, outcome, detail, ...keyed };
}
