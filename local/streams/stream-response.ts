/**
 * How Lambda reads a stream function's response
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html): without
 * ReportBatchItemFailures any response is a success; with it, `batchItemFailures` names sequence numbers,
 * and the lowest one is where the shard is checkpointed before and retried from.
 */
import type { ShardRecord } from './stream-event.js';

export type StreamVerdict =
  /** Every record succeeded: checkpoint past the batch. */
  | { readonly kind: 'success' }
  /** Records from `failedIndex` on are retried; the ones before it are checkpointed. */
  | { readonly kind: 'partial'; readonly failedIndex: number }
  /** A complete failure: the whole batch is retried, as after a function error. */
  | { readonly kind: 'failed'; readonly reason: string };

export function interpretStreamResponse(
  batch: readonly ShardRecord[],
  response: unknown,
  reportBatchItemFailures: boolean,
): StreamVerdict {
  // "these responses will not be processed by Lambda unless the ReportBatchItemFailures feature is explicitly turned on"
  if (!reportBatchItemFailures) return { kind: 'success' };
  // An empty or null list, or an empty or null response: "a complete success".
  if (response === null || response === undefined) return { kind: 'success' };
  // Assumed: a response that is not an object cannot name records, so it fails the batch as a bad identifier does.
  if (typeof response !== 'object' || Array.isArray(response)) {
    return { kind: 'failed', reason: `the response is ${describe(response)}, not an object` };
  }
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { kind: 'success' };
  if (!Array.isArray(failures)) return { kind: 'failed', reason: 'batchItemFailures is not a list' };
  let failedIndex: number | undefined;
  for (const failure of failures) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    // Documented complete failures: an empty string, null, or a wrong key name (so no itemIdentifier).
    if (typeof identifier !== 'string' || identifier === '') {
      return { kind: 'failed', reason: `itemIdentifier ${describe(identifier)} is not a sequence number` };
    }
    // Assumed, as Lambda documents it for Kafka: a sequence number not in the batch fails the whole batch.
    const index = batch.findIndex((record) => record.sequenceNumber === identifier);
    if (index === -1) return { kind: 'failed', reason: `itemIdentifier ${identifier} is not in the batch` };
    // "Lambda uses the record with the lowest sequence number as the checkpoint": the batch is in shard order.
    failedIndex = Math.min(index, failedIndex ?? index);
  }
  return failedIndex === undefined ? { kind: 'success' } : { kind: 'partial', failedIndex };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 80))}` : typeof value;
}
