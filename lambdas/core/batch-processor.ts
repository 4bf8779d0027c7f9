import type { Clock } from './clock.js';
import type { DecodedPartition, DecodedRecord } from './decode-event.js';
import { type DedupKeyPolicy, deriveDedupKey } from './dedup-key.js';
import { type Effect, type EffectPlan, MAX_EFFECT_WRITES } from './effect.js';
import { EffectRejectedError } from './errors.js';
import type { InboxEntry, InboxStore, RowConflict } from './inbox-store.js';
import { type Lanes, ONE_LANE, runInLanes } from './lane-scheduler.js';
import { mapConcurrently } from './map-concurrently.js';
import { orderingKeyOf, type PartitionOrdering } from './ordering.js';
import { isApplied, isReported, type RecordOutcome } from './outcome.js';
import { quarantineKeyOf } from './quarantine-row.js';
import { errorMessage, failed, leaseDetail, outcome } from './record-outcome.js';
import { RefusalStreak } from './refusal-streak.js';

export interface BatchProcessorOptions {
  readonly store: InboxStore;
  readonly effect: Effect;
  /**
   * Says why a record is not for this consumer (e.g. another event type), before any key is needed:
   * such records are acked with no write at all.
   */
  readonly skipRecord?: (record: DecodedRecord) => string | undefined;
  readonly dedupKeyPolicy: DedupKeyPolicy;
  readonly clock: Clock;
  /** Lambda's `context.getRemainingTimeInMillis`. */
  readonly remainingTimeMs: () => number;
  /** No record starts once less than this is left; the rest are reported as deferred. */
  readonly deadlineMarginMs: number;
  /** A side-effect lease lasts the remaining invocation time plus this, so it outlives a timed-out attempt. */
  readonly leaseMarginMs: number;
  /** Partitions processed at once. */
  readonly partitionConcurrency: number;
  /**
   * Which records of a partition run one after another: all of them (`partition`), or those of one
   * ordering key (`key`), different keys concurrently.
   * @default { by: 'partition' }
   */
  readonly ordering?: PartitionOrdering;
  /** DynamoDB's content refusals since the last applied record; the handler keeps one per container. @default a new one */
  readonly refusals?: RefusalStreak;
}

interface FirstCopy {
  readonly payloadHash: string;
  readonly coordinates: string;
  readonly outcome: Promise<RecordOutcome>;
}

/** What one invocation learns as it goes. */
interface BatchState {
  /** Copies of one key within the batch are resolved once: later copies wait for the first. */
  readonly firstCopies: Map<string, FirstCopy>;
  readonly refusals: RefusalStreak;
}

/**
 * Runs one batch: partitions concurrently (bounded), each partition's records in lanes (lane-scheduler.ts):
 * after a partition's first reported record the records after it are not started and are all reported, so
 * Lambda's checkpoint (commit up to the lowest reported offset) never skips a record.
 */
export async function processBatch(
  partitions: readonly DecodedPartition[],
  options: BatchProcessorOptions,
): Promise<RecordOutcome[]> {
  const state: BatchState = { firstCopies: new Map(), refusals: options.refusals ?? new RefusalStreak() };
  const lanes = lanesOf(options.ordering);
  const perPartition = await mapConcurrently(partitions, options.partitionConcurrency, (partition) =>
    runInLanes(partition.records, lanes, {
      run: (record) => processRecord(record, options, state),
      notStarted: (record, status, reason, detail) => outcome(record, status, { reason, detail }),
      deadlineNear: () => options.remainingTimeMs() < options.deadlineMarginMs,
    }),
  );
  return perPartition.flat();
}

function lanesOf(ordering: PartitionOrdering | undefined): Lanes {
  if (ordering?.by !== 'key') return ONE_LANE;
  return {
    laneOf: (record) => orderingKeyOf(record, ordering.keySource),
    concurrency: ordering.keyConcurrency,
  };
}

async function processRecord(
  record: DecodedRecord,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  const result = await settleRecord(record, options, state);
  if (isApplied(result.status)) state.refusals.applied();
  return result;
}

async function settleRecord(
  record: DecodedRecord,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  const { firstCopies } = state;
  try {
    if (record.problem !== undefined) return await quarantine(record, options, 'undecodable', record.problem);
    const skipReason = options.skipRecord?.(record);
    if (skipReason !== undefined) return outcome(record, 'skipped', { reason: skipReason });
    const key = deriveDedupKey(record, options.dedupKeyPolicy);
    if (!key.ok) return await quarantine(record, options, key.reason, key.message);

    const first = firstCopies.get(key.key);
    if (first) {
      const settled = await resolveAgainstFirstCopy(record, key.key, first, options);
      if (settled) return settled;
    } else {
      let resolveOutcome!: (outcome: RecordOutcome) => void;
      const pending = new Promise<RecordOutcome>((resolve) => {
        resolveOutcome = resolve;
      });
      firstCopies.set(key.key, {
        payloadHash: record.payloadHash,
        coordinates: record.coordinates,
        outcome: pending,
      });
      // Resolved whatever happens, so later copies never wait forever.
      let result = outcome(record, 'failed', { reason: 'unsettled' });
      try {
        result = await applyOnce(record, key.key, options, state).catch((error: unknown) =>
          failed(record, error),
        );
      } finally {
        resolveOutcome(result);
      }
      return result;
    }
    return await applyOnce(record, key.key, options, state);
  } catch (error) {
    return failed(record, error);
  }
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
      'payload-conflict',
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

async function applyOnce(
  record: DecodedRecord,
  dedupKey: string,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  const plan = await options.effect({ record, dedupKey });
  const entry: InboxEntry = {
    dedupKey,
    payloadHash: record.payloadHash,
    source: `${record.topic}-${record.partition}@${record.offset}`,
  };
  switch (plan.kind) {
    case 'skip':
      return outcome(record, 'skipped', { reason: plan.reason, dedupKey });
    case 'reject':
      return quarantine(record, options, plan.reason, plan.message);
    case 'transact':
      return commit(record, entry, plan, options, state);
    case 'call':
      return claimAndRun(record, entry, plan, options);
  }
}

async function commit(
  record: DecodedRecord,
  entry: InboxEntry,
  plan: Extract<EffectPlan, { kind: 'transact' }>,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  if (plan.writes.length > MAX_EFFECT_WRITES) {
    // The same record always asks for as many: retrying cannot help.
    return quarantine(
      record,
      options,
      'effect-too-large',
      `${plan.writes.length} writes; a transaction holds ${MAX_EFFECT_WRITES} besides the inbox row`,
    );
  }
  const result = await options.store.commit(entry, plan.writes);
  const dedupKey = entry.dedupKey;
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
      return outcome(record, 'failed', { reason: 'transaction-conflict', detail: result.message, dedupKey });
    case 'rejected':
      return rejectedByStore(record, result.message, options, state);
  }
}

/**
 * DynamoDB refused what this record put in the request: quarantined, unless the container has seen
 * MAX_REJECTIONS_WITHOUT_SUCCESS refusals since its last applied record (refusal-streak.ts). Then it looks
 * like every record fails the same way (a systemic fault): the record is reported, unless a delivery
 * before quarantined it already.
 */
async function rejectedByStore(
  record: DecodedRecord,
  message: string,
  options: BatchProcessorOptions,
  state: BatchState,
): Promise<RecordOutcome> {
  if (state.refusals.admit()) return quarantine(record, options, 'dynamodb-rejected', message);
  const quarantineKey = quarantineKeyOf(record);
  if (await options.store.isQuarantined(quarantineKey)) {
    return outcome(record, 'quarantined', {
      reason: 'dynamodb-rejected',
      detail: `${message} (quarantined earlier)`,
      quarantineKey,
    });
  }
  return outcome(record, 'failed', {
    reason: 'systemic-store-error',
    detail: `${message} (refused for several records in a row, none applied in between)`,
  });
}

async function claimAndRun(
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
    if (error instanceof EffectRejectedError) {
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
async function rowConflictOutcome(
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
        'payload-conflict',
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

async function quarantine(
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
  });
  return outcome(record, 'quarantined', {
    reason,
    detail: written === 'already-quarantined' ? `${message} (quarantined earlier)` : message,
    quarantineKey,
  });
}
