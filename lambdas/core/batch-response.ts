import { UnreportableRecordError } from './errors.js';
import type { KafkaBatchResponse } from './kafka-event.js';
import { isReported, type RecordOutcome } from './outcome.js';

/**
 * Kafka's partial batch response: every reported record, identified by the `records` map key exactly as
 * it came and its offset. An identifier not in the event would make Lambda retry the whole batch.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
 *
 * Lambda commits a partition up to its lowest reported offset and redelivers every record after it, so
 * every later record of that partition is reported too, even one already finished (with per-key
 * ordering, other keys may have run past the failure): its redelivery is deduplicated.
 *
 * `outcomes` come partition by partition, each in the order the records were delivered (offset order).
 * A record without a usable offset cannot be named; it comes back all the same when a record delivered
 * before it is reported, so the response names the nearest earlier record with an offset (finished or
 * not: its redelivery is deduplicated). Only when no such record exists must the whole invocation fail.
 */
export function toBatchResponse(outcomes: readonly RecordOutcome[]): KafkaBatchResponse {
  const lowestReported = new Map<string, number>();
  const lastOffset = new Map<string, number>();
  for (const outcome of outcomes) {
    const { partitionKey } = outcome;
    if (isReported(outcome.status)) {
      const from = outcome.offset ?? lastOffset.get(partitionKey);
      if (from === undefined) {
        throw new UnreportableRecordError(
          `${outcome.coordinates} must be retried (${outcome.reason ?? outcome.status}) but neither it nor any record before it has an offset to report`,
        );
      }
      const lowest = lowestReported.get(partitionKey);
      if (lowest === undefined || from < lowest) lowestReported.set(partitionKey, from);
    }
    if (outcome.offset !== undefined) lastOffset.set(partitionKey, outcome.offset);
  }
  const batchItemFailures = [];
  for (const outcome of outcomes) {
    const from = lowestReported.get(outcome.partitionKey);
    if (from === undefined || outcome.offset === undefined || outcome.offset < from) continue;
    batchItemFailures.push({ itemIdentifier: { partition: outcome.partitionKey, offset: outcome.offset } });
  }
  return { batchItemFailures };
}
