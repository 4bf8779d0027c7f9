/** How a record ends once its plan is known: the store's answers turned into outcomes, quarantine, leases. */
import type { BatchProcessorOptions, BatchState } from './batch-context.js';
import type { DecodedRecord } from './decode-event.js';
import { deriveDedupKey } from './dedup-key.js';
import type { EffectPlan, EffectWrite } from './effect.js';
import { EffectRejectedError } from './errors.js';
import type { CommitResult, InboxEntry, RowConflict } from './inbox-store.js';
import { PAYLOAD_CONFLICT, type RecordOutcome } from './outcome.js';
import { quarantineKeyOf } from './quarantine-row.js';
import { errorMessage, leaseDetail, outcome } from './record-outcome.js';

/** A transactional record's outcome from what the store answered for its commit. */
export async function commitOutcome(
  record: DecodedRecord,
  dedupKey: string,
  result: CommitResult,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  switch (result.kind) {
    case 'committed':
      return outcome(record, 'processed', { dedupKey });
    case 'duplicate':
    case 'conflict':
    case 'in-flight':
      return rowConflictOutcome(record, result, dedupKey, options);
    case 'business-rejected':
      return quarantine(
        record,
        options,
        'business-rule-rejected',
        `write ${result.writeIndex}: ${result.message}`,
      );
    case 'transient':
      return outcome(record, 'failed', {
        reason: result.reason ?? 'transaction-conflict',
        detail: result.message,
        dedupKey,
      });
    case 'rejected':
      return rejectedByStore(record, result.message, options, state, result.reason);
    case 'effect-rejected':
      return quarantine(record, options, result.reason, result.message);
    case 'effect-failed':
      return outcome(record, 'failed', { reason: result.reason, detail: result.message, dedupKey });
    case 'not-sent':
      if (result.reason === 'deadline') {
        return outcome(record, 'deferred', {
          reason: 'deadline',
          detail: 'its group had to go again with the invocation deadline near',
          dedupKey,
        });
      }
      return outcome(record, 'blocked', {
        reason: 'not-started',
        detail: 'a record before it in its group may be reported',
        dedupKey,
      });
  }
}

/**
 * The store refused what this record put in the request: quarantined under `reason`, unless the container has seen
 * MAX_REJECTIONS_WITHOUT_SUCCESS refusals since its last applied record (refusal-streak.ts). Then it looks
 * like every record fails the same way (a systemic fault): the record is reported, unless a delivery
 * before quarantined it already.
 */
export async function rejectedByStore(
  record: DecodedRecord,
  message: string,
  options: BatchProcessorOptions,
  state: BatchState,
  reason = 'dynamodb-rejected',
): Promise<RecordOutcome> {
  if (state.refusals.admit()) return quarantine(record, options, reason, message);
  const quarantineKey = quarantineKeyOf(record);
  if (await options.store.isQuarantined(quarantineKey)) {
    return outcome(record, 'quarantined', {
      reason,
      detail: `${message} (quarantined earlier)`,
      quarantineKey,
    });
  }
  return outcome(record, 'failed', {
    reason: 'systemic-store-error',
    detail: `${message} (refused for several records in a row, none applied in between)`,
  });
}

/**
 * An `idempotent` plan's writes, sent without an inbox row. A failed guard means the event was applied
 * before or is stale: a duplicate, acked and counted, never retried (docs/design.md#idempotent-plans).
 */
export async function applyIdempotent(
  record: DecodedRecord,
  dedupKey: string,
  writes: readonly EffectWrite[],
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  const result = await options.store.applyIdempotent(writes);
  switch (result.kind) {
    case 'applied':
      return outcome(record, 'processed', { dedupKey });
    case 'guard-failed':
      return outcome(record, 'duplicate', {
        reason: GUARD_FAILED,
        detail: `write ${result.writeIndex}'s condition failed (applied before, or a newer event is): ${result.message}`,
        dedupKey,
      });
    case 'transient':
      return outcome(record, 'failed', { reason: 'transaction-conflict', detail: result.message, dedupKey });
    case 'rejected':
      return rejectedByStore(record, result.message, options, state);
    case 'unsupported':
      return outcome(record, 'failed', { reason: 'systemic-store-error', detail: result.message, dedupKey });
  }
}

/** The reason of a duplicate an idempotent plan's guard found: no inbox row says so, the item does. */
const GUARD_FAILED = 'guard-failed';

export async function claimAndRun(
  record: DecodedRecord,
  entry: InboxEntry,
  plan: Extract<EffectPlan, { kind: 'call' }>,
  options: BatchProcessorOptions,
): Promise<RecordOutcome> {
  const dedupKey = entry.dedupKey;
  const leaseUntilMs = options.clock.nowMs() + options.remainingTimeMs() + options.leaseMarginMs;
  const claim = await options.store.claim(entry, leaseUntilMs);
  if (claim.kind !== 'claimed') return rowConflictOutcome(record, claim, dedupKey, options);
  try {
    await plan.run(claim.lease);
  } catch (error) {
    const released = await options.store.release(claim.lease).catch(() => 'unreleased' as const);
    const leaseLost = released === 'lease-lost';
    if (EffectRejectedError.isRejection(error)) {
      const quarantined = await quarantine(record, options, error.reason, error.message);
      return { ...quarantined, leaseLost };
    }
    // An unreleased row (outage) frees itself when its lease ends; the redelivery is then claimable.
    return outcome(record, 'failed', {
      reason: 'effect-error',
      detail: errorMessage(error),
      dedupKey,
      leaseLost,
    });
  }
  const completed = await options.store.complete(claim.lease);
  // The effect ran; a lost lease means another attempt may run it too: counted, never hidden.
  return outcome(record, 'processed', { dedupKey, leaseLost: completed === 'lease-lost' });
}

/** The key's row is already there: finished (duplicate or conflict) or leased by another attempt. */
export async function rowConflictOutcome(
  record: DecodedRecord,
  conflict: RowConflict,
  dedupKey: string,
  options: BatchProcessorOptions,
): Promise<RecordOutcome> {
  switch (conflict.kind) {
    case 'duplicate':
      return outcome(record, 'duplicate', {
        reason: 'completed',
        detail: `first seen at ${conflict.existing.source}`,
        dedupKey,
      });
    case 'conflict':
      return quarantine(
        record,
        options,
        PAYLOAD_CONFLICT,
        `event_id first seen at ${conflict.existing.source} with another payload`,
      );
    case 'in-flight':
      return outcome(record, 'in-flight', {
        reason: 'live-lease',
        detail: leaseDetail(conflict.existing.leaseUntilMs),
        dedupKey,
      });
  }
}

export async function quarantine(
  record: DecodedRecord,
  options: BatchProcessorOptions,
  reason: string,
  message: string,
): Promise<RecordOutcome> {
  const quarantineKey = quarantineKeyOf(record);
  const written = await options.store.quarantine({
    coordinates: quarantineKey,
    reason,
    message,
    record: record.raw,
    dedupKey: keyForReplay(record, options),
  });
  return outcome(record, 'quarantined', {
    reason,
    detail: written === 'already-quarantined' ? `${message} (quarantined earlier)` : message,
    quarantineKey,
  });
}

/**
 * The key the consumer derives for a record it quarantines, kept on the row so a replay judges by the
 * consumer's own key (docs/operate.md#replay): the same derivation under the same policy, so it is the key
 * the record was (or would have been) deduplicated under. None where it derives none.
 */
function keyForReplay(record: DecodedRecord, options: BatchProcessorOptions): string | undefined {
  try {
    const derived = deriveDedupKey(record, options.dedupKeyPolicy);
    return derived.ok ? derived.key : undefined;
  } catch {
    // quarantine() must not throw for want of a key it only keeps for an operator.
    return undefined;
  }
}
