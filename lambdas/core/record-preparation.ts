/**
 * A record's way to its plan, before anything is committed: undecodable, skipped, keyless and rejected
 * records (EffectRejectedError from the effect) settle here; copies of a key seen earlier in the batch are resolved against the first copy;
 * a transactional plan comes back as a commit for the group (group-commit.ts) to send; an idempotent plan
 * runs alone, in its turn, since it has no inbox row to share a transaction with.
 */
import type { BatchProcessorOptions, BatchState, FirstCopy } from './batch-context.js';
import type { DecodedRecord } from './decode-event.js';
import { deriveDedupKey } from './dedup-key.js';
import { type EffectPlan, type EffectWrite, MAX_EFFECT_WRITES, type SqlEffect } from './effect.js';
import { EffectRejectedError } from './errors.js';
import { checkIdempotentWrites, NOT_IDEMPOTENT } from './idempotent-writes.js';
import type { InboxEntry } from './inbox-store.js';
import { type OutboxEmission, outboxAppends, outboxEmissions } from './outbox-appends.js';
import type { OutboxEvent } from './outbox-rows.js';
import { isApplied, isReported, PAYLOAD_CONFLICT, type RecordOutcome } from './outcome.js';
import { failed, outcome } from './record-outcome.js';
import { applyIdempotent, claimAndRun, quarantine, rowConflictOutcome } from './record-settlement.js';
import { HANDLER_SETTINGS } from './settings.js';

export type Prepared =
  /** Settled without a commit. */
  | { readonly kind: 'settled'; readonly outcome: RecordOutcome }
  /** Transactional: its inbox row and writes, to commit; `settle` gives it its outcome. */
  | {
      readonly kind: 'commit';
      readonly record: DecodedRecord;
      readonly entry: InboxEntry;
      readonly writes: readonly EffectWrite[];
      readonly sql?: SqlEffect;
      readonly emits?: readonly OutboxEmission[];
      readonly settle: (outcome: RecordOutcome) => RecordOutcome;
    }
  /**
   * Writes on its own (side-effect mode, a quarantine row): runs once nothing before it is waiting to
   * commit, so a partition's writes land in offset order.
   */
  | {
      readonly kind: 'run-alone';
      readonly run: () => Promise<RecordOutcome>;
      /** Its outcome when it is not run after all. */
      readonly settle: (outcome: RecordOutcome) => RecordOutcome;
    }
  /**
   * A copy of a key whose first copy has not settled, met while a group is open: waiting for it could
   * wait on this very group (or on one that waits on it). Taken again once the group is committed.
   */
  | { readonly kind: 'wait-for-first-copy' };

/** A transactional record ready to commit, alone or in a group. */
export type CommitPrepared = Extract<Prepared, { kind: 'commit' }>;

/** Prepares one record; never throws. `groupOpen`: records before it are waiting to commit. */
export async function prepareRecord(
  record: DecodedRecord,
  options: BatchProcessorOptions,
  state: BatchState,
  groupOpen: boolean,
): Promise<Prepared> {
  const settled = (result: RecordOutcome): Prepared => ({ kind: 'settled', outcome: result });
  let key: string | undefined;
  try {
    const problem = record.problem;
    if (problem !== undefined)
      return alone(record, () => quarantine(record, options, 'undecodable', problem));
    const skipReason = options.skipRecord?.(record);
    if (skipReason !== undefined) return settled(outcome(record, 'skipped', { reason: skipReason }));
    const derived = deriveDedupKey(record, options.dedupKeyPolicy);
    if (!derived.ok) return alone(record, () => quarantine(record, options, derived.reason, derived.message));
    key = derived.key;
  } catch (error) {
    return settled(failed(record, error));
  }

  const first = state.firstCopies.get(key);
  if (first) {
    // With a group open only a plain duplicate of an applied first copy settles here (no write); anything
    // else waits until the group is committed.
    const known = first.settled;
    const plainDuplicate =
      known !== undefined && isApplied(known.status) && record.payloadHash === first.payloadHash;
    if (groupOpen && !plainDuplicate) return { kind: 'wait-for-first-copy' };
    try {
      const resolved = await resolveAgainstFirstCopy(record, key, first, options);
      if (resolved) return settled(resolved);
    } catch (error) {
      return settled(failed(record, error));
    }
    // The first copy was reported: this one is processed on its own, as a later copy.
    return planned(record, key, options, state, (result) => result);
  }
  let resolveFirst!: (outcome: RecordOutcome) => void;
  const copy: FirstCopy = {
    payloadHash: record.payloadHash,
    coordinates: record.coordinates,
    outcome: new Promise<RecordOutcome>((resolve) => {
      resolveFirst = resolve;
    }),
    settled: undefined,
  };
  state.firstCopies.set(key, copy);
  // Every path gives the first copy its outcome, so later copies never wait forever.
  const settleFirst = (result: RecordOutcome): RecordOutcome => {
    copy.settled = result;
    resolveFirst(result);
    return result;
  };
  const prepared = await planned(record, key, options, state, settleFirst);
  if (prepared.kind === 'settled') settleFirst(prepared.outcome);
  return prepared;
}

async function planned(
  record: DecodedRecord,
  dedupKey: string,
  options: BatchProcessorOptions,
  state: BatchState,
  settle: (outcome: RecordOutcome) => RecordOutcome,
): Promise<Prepared> {
  const settled = (result: RecordOutcome): Prepared => ({ kind: 'settled', outcome: result });
  try {
    const entry: InboxEntry = {
      dedupKey,
      payloadHash: record.payloadHash,
      source: `${record.topic}-${record.partition}@${record.offset}`,
    };
    // A redelivery of a key this container saw completed: no plan, no group, no request.
    const known = options.store.knownDuplicate?.(entry);
    if (known) return settled(await rowConflictOutcome(record, known, dedupKey, options));
    let plan: EffectPlan;
    try {
      plan = await options.effect({ record, dedupKey });
    } catch (error) {
      if (!EffectRejectedError.isRejection(error)) throw error;
      return alone(record, () => quarantine(record, options, error.reason, error.message), settle);
    }
    switch (plan.kind) {
      case 'skip':
        return settled(outcome(record, 'skipped', { reason: plan.reason, dedupKey }));
      case 'transact': {
        const emitted = plan.emit?.length
          ? emittedWrites(record, dedupKey, plan.emit, options, state, settle)
          : [];
        if ('kind' in emitted) return emitted;
        const writes = emitted.length > 0 ? [...plan.writes, ...emitted] : plan.writes;
        if (writes.length > MAX_EFFECT_WRITES) {
          // The same record always asks for as many: retrying cannot help.
          return alone(
            record,
            () =>
              quarantine(
                record,
                options,
                'effect-too-large',
                `${writes.length} writes${emitted.length > 0 ? ` (${emitted.length} of them outbox appends)` : ''}; a transaction holds ${MAX_EFFECT_WRITES} besides the inbox row`,
              ),
            settle,
          );
        }
        return { kind: 'commit', record, entry, writes, settle };
      }
      case 'sql': {
        if (!plan.emit?.length) return { kind: 'commit', record, entry, writes: [], sql: plan.run, settle };
        const checked = outboxEmissions(
          options.consumerName ?? '',
          dedupKey,
          plan.emit,
          state.trace.traceparentOf(record),
        );
        if (!checked.ok) {
          return alone(
            record,
            () => quarantine(record, options, 'outbox-event-invalid', checked.problem),
            settle,
          );
        }
        return { kind: 'commit', record, entry, writes: [], sql: plan.run, emits: checked.emissions, settle };
      }
      case 'idempotent': {
        // Its own request, never in a group's transaction: that would bill it an inbox row's price again.
        const shape = checkIdempotentWrites(plan.writes, dedupKey);
        if (!shape.ok)
          return alone(record, () => quarantine(record, options, NOT_IDEMPOTENT, shape.problem), settle);
        return alone(record, () => applyIdempotent(record, dedupKey, plan.writes, options, state), settle);
      }
      case 'call':
        return alone(record, () => claimAndRun(record, entry, plan, options), settle);
    }
  } catch (error) {
    return settled(failed(record, error));
  }
}

/**
 * The outbox appends of a plan's events (outbox-appends.ts), or the record's outcome when they cannot be
 * written: quarantined when the events themselves are wrong (the same record always emits them), reported
 * when the consumer has no outbox (a setup mistake every such record shares).
 */
function emittedWrites(
  record: DecodedRecord,
  dedupKey: string,
  events: readonly OutboxEvent[],
  options: BatchProcessorOptions,
  state: BatchState,
  settle: (outcome: RecordOutcome) => RecordOutcome,
): readonly EffectWrite[] | Prepared {
  if (options.outbox === undefined) {
    return {
      kind: 'settled',
      outcome: settle(
        outcome(record, 'failed', {
          reason: 'systemic-store-error',
          detail: `the effect emits events but ${HANDLER_SETTINGS.outboxTableName.env} is not set (the KafkaConsumer's outbox prop sets it)`,
          dedupKey,
        }),
      ),
    };
  }
  const appends = outboxAppends(
    options.outbox,
    dedupKey,
    events,
    options.clock.nowMs(),
    state.trace.traceparentOf(record),
  );
  if (appends.ok) return appends.writes;
  return alone(record, () => quarantine(record, options, 'outbox-event-invalid', appends.problem), settle);
}

/** A record that writes on its own; whatever `run` throws is the record's failure. */
function alone(
  record: DecodedRecord,
  run: () => Promise<RecordOutcome>,
  settle: (outcome: RecordOutcome) => RecordOutcome = (result) => result,
): Prepared {
  return {
    kind: 'run-alone',
    run: () =>
      run()
        .catch((error: unknown) => failed(record, error))
        .then(settle),
    settle,
  };
}

/** A later copy of a key seen earlier in this batch; undefined means: process it on its own. */
async function resolveAgainstFirstCopy(
  record: DecodedRecord,
  dedupKey: string,
  first: FirstCopy,
  options: BatchProcessorOptions,
): Promise<RecordOutcome | undefined> {
  const firstOutcome = await first.outcome;
  if (firstOutcome.status === 'quarantined' && record.payloadHash === first.payloadHash) {
    // The same event again: what could never succeed once cannot now; no second try at the store.
    return quarantine(
      record,
      options,
      firstOutcome.reason ?? 'quarantined',
      `same event as ${first.coordinates}, which was quarantined`,
    );
  }
  if (isApplied(firstOutcome.status)) {
    if (record.payloadHash === first.payloadHash) {
      return outcome(record, 'duplicate', {
        reason: 'in-batch',
        detail: `same event as ${first.coordinates}`,
        dedupKey,
      });
    }
    return quarantine(
      record,
      options,
      PAYLOAD_CONFLICT,
      `event_id already used by ${first.coordinates} with another payload`,
    );
  }
  if (isReported(firstOutcome.status)) {
    return outcome(record, 'in-flight', {
      reason: 'in-batch',
      detail: `same event_id as ${first.coordinates}, which is being retried`,
      dedupKey,
    });
  }
  return undefined;
}
