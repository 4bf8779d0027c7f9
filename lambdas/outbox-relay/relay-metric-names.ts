/**
 * EMF metric names the outbox relay emits, named once for the relay (relay-metrics.ts) and its construct's
 * alarms and dashboard. Namespace: METRICS_NAMESPACE (`MskInbox`, or POWERTOOLS_METRICS_NAMESPACE), as the
 * consumer's; one dimension, RELAY_METRICS_DIMENSION. Every invocation emits each count, zeros included,
 * so an alarm never reads missing data as fine; the two ages only when there was something to measure.
 */
export { METRICS_NAMESPACE } from '../core/metric-names.js';

/**
 * Powertools Metrics puts `service` on every metric; the relay's value is its function's name
 * (AWS_LAMBDA_FUNCTION_NAME), so an alarm's dimensions are `{ service: fn.functionName }`.
 */
export const RELAY_METRICS_DIMENSION = 'service';

export const RELAY_METRICS = {
  /** Count: events Kafka acknowledged (from all in-sync replicas). */
  eventsPublished: 'EventsPublished',
  /** Count: events Kafka refused for good, moved to quarantine rows. Alarm on any. */
  eventsQuarantined: 'EventsQuarantined',
  /** Count: stream records reported for retry because a send may pass later (broker down, too few replicas). */
  publishFailures: 'PublishFailures',
  /** Count: stream records reported for retry because DynamoDB failed (a removal, a quarantine, a read). */
  storeFailures: 'RelayStoreFailures',
  /** Count: stream records whose queue row could not be read (no consumer of the contract wrote it); skipped. */
  malformedRows: 'MalformedQueueRows',
  /** Count: invocations that failed as a whole (bad settings, a record without a sequence number). */
  failedBatches: 'RelayFailedBatches',
  /** Milliseconds: now minus the commit time of each event published, the batch's largest. */
  publishLag: 'PublishLagMs',
  /** Milliseconds: now minus `oldest_at` of the queue rows the batch saw, the largest. */
  oldestPendingAge: 'OldestPendingAgeMs',
} as const;
