/** Building a record's outcome: one shape for every path of the processor. */
import type { DecodedRecord } from './decode-event.js';
import { InboxStoreError } from './errors.js';
import type { OutcomeStatus, RecordOutcome } from './outcome.js';

export function outcome(
  record: DecodedRecord,
  status: OutcomeStatus,
  extra: Omit<RecordOutcome, 'partitionKey' | 'offset' | 'coordinates' | 'status'> = {},
): RecordOutcome {
  return {
    partitionKey: record.partitionKey,
    offset: record.offset,
    coordinates: record.coordinates,
    status,
    ...extra,
  };
}

export function leaseDetail(leaseUntilMs: number | undefined): string {
  return leaseUntilMs === undefined
    ? 'another attempt holds the lease'
    : `leased until ${new Date(leaseUntilMs).toISOString()}`;
}

export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

/** Whatever was thrown, as text: a value without a string form (a null-prototype object) must not throw here. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return `a thrown ${typeof error}`;
  }
}

/**
 * Every record ends in an outcome: an unexpected error is a retryable failure, never a lost record. A
 * systemic store failure (store-failure.ts) is named so, for the logs and the alarm.
 */
export function failed(record: DecodedRecord, error: unknown): RecordOutcome {
  const systemic = error instanceof InboxStoreError && error.failureClass === 'systemic';
  return outcome(record, 'failed', {
    reason: systemic ? 'systemic-store-error' : errorName(error),
    detail: errorMessage(error),
  });
}
