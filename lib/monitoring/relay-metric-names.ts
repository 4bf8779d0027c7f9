/**
 * The EMF metrics the outbox relay emits and RelayMonitoring reads, named once (docs/outbox.md#metrics).
 * Namespace: the consumer's (METRICS_NAMESPACE). Each is emitted with exactly one dimension, `Relay` = the
 * function's name (AWS_LAMBDA_FUNCTION_NAME): CloudWatch tells metrics apart by their whole dimension set,
 * so one emitted with another dimension besides (Powertools' default `service`) is another metric, which
 * the dashboard and the alarms would not see. Importing this loads nothing but the namespace.
 */
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';

/** The relay's EMF namespace, dimension and metric names (each metric's unit and statistic beside it). */
export const RELAY_METRICS = {
  namespace: METRICS_NAMESPACE,
  /** The one dimension: the relay function's name. */
  dimension: 'Relay',
  /** Milliseconds, read as Maximum: age of the oldest event still unpublished in the rows an invocation saw. */
  oldestPendingAgeMs: 'OutboxOldestPendingAgeMs',
  /** Count, read as Sum: events the relay gave up on for good and moved to quarantine rows. */
  eventsQuarantined: 'OutboxEventsQuarantined',
  /** Count, read as Sum: sends to Kafka that failed and will be retried. */
  publishFailures: 'OutboxPublishFailures',
  /** Count, read as Sum: events published and removed from their queue rows. */
  eventsPublished: 'OutboxEventsPublished',
} as const;
