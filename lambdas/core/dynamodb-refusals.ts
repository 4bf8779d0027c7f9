/**
 * Reading DynamoDB's refusals: a failed condition's old row (ALL_OLD), a cancelled transaction's reasons
 * (one per action, in order), and the errors the store turns into inbox outcomes or an InboxStoreError.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EffectWrite } from './effect.js';
import { InboxStoreError } from './errors.js';
import { readDedupRow } from './inbox-rows.js';
import {
  type CommitMember,
  type CommitResult,
  classifyExistingRow,
  type ExistingRow,
  type IdempotentResult,
} from './inbox-store.js';
import { isOutboxAppend, outboxBacklogMessage } from './outbox-appends.js';
import { classifyStoreFailure, validationReason } from './store-failure.js';

type CancellationReason = { Code?: string; Message?: string; Item?: unknown };

/**
 * What a cancelled group's reasons settle: per member named by a failed condition, its result; or every
 * open member transient; or 'one-by-one' when the request itself was refused (no member is named).
 */
export function groupCancellation(
  error: unknown,
  owners: readonly [member: number, write: number][],
  members: readonly CommitMember[],
):
  | 'one-by-one'
  | { readonly kind: 'transient'; readonly message: string }
  | { readonly kind: 'settled'; readonly results: Map<number, CommitResult> } {
  if (!isNamed(error, 'TransactionCanceledException')) {
    if (classifyStoreFailure(error) === 'permanent') return 'one-by-one';
    throw storeError('commit', error);
  }
  const reasons = cancellationReasons(error, 'commit');
  if (validationReason(error) !== undefined) {
    if (classifyStoreFailure(error) === 'permanent') return 'one-by-one';
    throw storeError('commit', error);
  }
  const transient = transientCancellation(reasons);
  if (transient) return transient;
  const results = new Map<number, CommitResult>();
  reasons.forEach((reason, action) => {
    const owner = owners[action];
    if (!owner || reason.Code !== 'ConditionalCheckFailed') return;
    const [member, write] = owner;
    const payloadHash = (members[member] as CommitMember).entry.payloadHash;
    if (write === -1) {
      // The row's own condition is judged first, as in commit: a finished key is a duplicate whatever its writes say.
      const existing = reason.Item ? toExistingRow(reason.Item) : undefined;
      if (existing) results.set(member, classifyExistingRow(existing, payloadHash));
    } else if (!results.has(member)) {
      const action = (members[member] as CommitMember).writes[write];
      results.set(
        member,
        action !== undefined && isOutboxAppend(action)
          ? { kind: 'transient', reason: 'outbox-backlog', message: outboxBacklogMessage(action) }
          : {
              kind: 'business-rejected',
              writeIndex: write,
              message: reason.Message ?? 'an effect condition failed',
            },
      );
    }
  });
  if (results.size === 0) throw storeError('commit', error);
  return { kind: 'settled', results };
}

export function cancellationOutcome(
  error: unknown,
  payloadHash: string,
  writes: readonly EffectWrite[],
): CommitResult {
  const reasons = cancellationReasons(error, 'commit');
  // Reasons come in action order: index 0 is the inbox row.
  const inbox = reasons[0];
  const invalid = validationReason(error);
  if (invalid !== undefined) {
    if (classifyStoreFailure(error) === 'permanent') return { kind: 'rejected', message: invalid };
    throw storeError('commit', error);
  }
  if (inbox?.Code === 'ConditionalCheckFailed') {
    const existing = inbox.Item ? toExistingRow(inbox.Item) : undefined;
    if (existing) return classifyExistingRow(existing, payloadHash);
  }
  const business = reasons.findIndex(
    (reason, index) => index > 0 && reason.Code === 'ConditionalCheckFailed',
  );
  if (business > 0) {
    const action = writes[business - 1];
    if (action !== undefined && isOutboxAppend(action)) {
      return { kind: 'transient', reason: 'outbox-backlog', message: outboxBacklogMessage(action) };
    }
    return {
      kind: 'business-rejected',
      writeIndex: business - 1,
      message: reasons[business]?.Message ?? 'an effect condition failed',
    };
  }
  const transient = transientCancellation(reasons);
  if (transient) return transient;
  throw storeError('commit', error);
}

/**
 * A cancelled `idempotent` transaction (no inbox row: reasons are the plan's writes, in order): a failed
 * condition is its guard (applied before, or stale); a conflict or throttling is transient.
 */
export function idempotentCancellation(error: unknown): IdempotentResult {
  const reasons = cancellationReasons(error, 'idempotent write');
  const invalid = validationReason(error);
  if (invalid !== undefined) {
    if (classifyStoreFailure(error) === 'permanent') return { kind: 'rejected', message: invalid };
    throw storeError('idempotent write', error);
  }
  const guard = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
  if (guard >= 0) {
    return {
      kind: 'guard-failed',
      writeIndex: guard,
      message: reasons[guard]?.Message ?? 'the condition failed',
    };
  }
  const transient = transientCancellation(reasons);
  if (transient) return transient;
  throw storeError('idempotent write', error);
}

/** A cancellation's reasons, one per action in order; a cancellation without them is the store's failure. */
function cancellationReasons(error: unknown, operation: string): CancellationReason[] {
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
  if (!reasons) throw storeError(operation, error);
  return reasons;
}

/** A conflict or throttling among the reasons: the whole request may be sent again later. */
function transientCancellation(
  reasons: readonly CancellationReason[],
): { readonly kind: 'transient'; readonly message: string } | undefined {
  const transient = reasons.find((reason) => TRANSIENT_CANCELLATIONS.has(reason.Code ?? ''));
  return transient && { kind: 'transient', message: `${transient.Code}: ${transient.Message ?? ''}`.trim() };
}

/** https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html */
const TRANSIENT_CANCELLATIONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

export function conditionFailureRow(error: unknown): ExistingRow | undefined {
  if (!isNamed(error, 'ConditionalCheckFailedException')) return undefined;
  const item = (error as { Item?: unknown }).Item;
  // Without the old item the cause is unknown; the caller treats it as a store error.
  return item ? toExistingRow(item) : undefined;
}

/** ALL_OLD comes back as raw AttributeValues even through the DocumentClient. */
function toExistingRow(item: unknown): ExistingRow | undefined {
  return readDedupRow(unmarshall(item as Record<string, AttributeValue>));
}

export function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

export function storeError(operation: string, error: unknown): InboxStoreError {
  const detail = messageOf(error);
  // A content refusal outside a commit (a bug: every row the store writes is bounded) is not retried as if transient.
  const failureClass = classifyStoreFailure(error) === 'transient' ? 'transient' : 'systemic';
  return new InboxStoreError(`DynamoDB ${operation} failed: ${detail}`, { cause: error, failureClass });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
