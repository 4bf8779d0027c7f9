/**
 * The outbox relay's EMF metrics as RelayMonitoring reads them: the names the relay emits
 * (lambdas/outbox-relay/relay-metric-names.ts, their one definition), with the namespace and the one
 * dimension. Powertools Metrics puts `service` = the function's name on each; CloudWatch tells metrics
 * apart by their whole dimension set, so the dashboard and the alarms ask for exactly that one.
 * Importing this loads nothing but the names.
 */
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import {
  RELAY_METRICS as EMITTED,
  RELAY_METRICS_DIMENSION,
} from '../../lambdas/outbox-relay/relay-metric-names.js';

/** The relay's EMF namespace, dimension and the metric names the monitoring reads. */
export const RELAY_METRICS = {
  namespace: METRICS_NAMESPACE,
  /** The one dimension: `service`, the relay function's name. */
  dimension: RELAY_METRICS_DIMENSION,
  /** Milliseconds, read as Maximum: age of the oldest event still unpublished in the rows an invocation saw. */
  oldestPendingAgeMs: EMITTED.oldestPendingAge,
  /** Count, read as Sum: events the relay gave up on for good and moved to quarantine rows. */
  eventsQuarantined: EMITTED.eventsQuarantined,
  /** Count, read as Sum: sends to Kafka that failed and will be retried. */
  publishFailures: EMITTED.publishFailures,
  /** Count, read as Sum: events published and removed from their queue rows. */
  eventsPublished: EMITTED.eventsPublished,
} as const;
