import { UnreportableRecordError } from './errors.js';
import type { KafkaBatchResponse } from './kafka-event.js';
import { isReported, type RecordOutcome } from './outcome.js';

/**
 * Kafka's partial batch response: every reported record, identified by the `records` map key exactly as
 * it came and its offset. An identifier not in the event would make Lambda retry the whole batch.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
 */
export function toBatchResponse(outcomes: readonly RecordOutcome[]): KafkaBatchResponse {
  const batchItemFailures = [];
  for (const outcome of outcomes) {
    if (!isReported(outcome.status)) continue;
    if (outcome.offset === undefined) {
      throw new UnreportableRecordError(
        `${outcome.coordinates} must be retried (${outcome.reason ?? outcome.status}) but has no offset to report`,
      );
    }
    batchItemFailures.push({ itemIdentifier: { partition: outcome.partitionKey, offset: outcome.offset } });
  }
  return { batchItemFailures };
}
