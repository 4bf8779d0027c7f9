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
 */
export function toBatchResponse(outcomes: readonly RecordOutcome[]): KafkaBatchResponse {
  const lowestReported = new Map<string, number>();
  for (const outcome of outcomes) {
    if (!isReported(outcome.status)) continue;
    if (outcome.offset === undefined) {
      throw new UnreportableRecordError(
        `${outcome.coordinates} must be retried (${outcome.reason ?? outcome.status}) but has no offset to report`,
      );
    }
    const lowest = lowestReported.get(outcome.partitionKey);
    if (lowest === undefined || outcome.offset < lowest)
      lowestReported.set(outcome.partitionKey, outcome.offset);
  }
  const batchItemFailures = [];
  for (const outcome of outcomes) {
    const from = lowestReported.get(outcome.partitionKey);
    // A finished record without an offset cannot be named; it lies past the commit point and comes back anyway.
    if (from === undefined || outcome.offset === undefined || outcome.offset < from) continue;
    batchItemFailures.push({ itemIdentifier: { partition: outcome.partitionKey, offset: outcome.offset } });
  }
  return { batchItemFailures };
}
