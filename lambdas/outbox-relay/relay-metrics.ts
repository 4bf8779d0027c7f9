/**
 * The relay's EMF metrics and its one log line per invocation, through Powertools (the consumer writes
 * the same shapes without it: lambdas/core/telemetry/). Names: relay-metric-names.ts.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { RELAY_METRICS } from './relay-metric-names.js';

/** What either relay counts in an invocation (the DynamoDB relay's RelaySummary, the Postgres relay's run). */
export interface RelayCounts {
  readonly published: number;
  readonly quarantined: number;
  readonly publishFailures: number;
  readonly storeFailures: number;
  /** Queue rows it could not read: the DynamoDB relay's only. */
  readonly malformedRows?: number;
  readonly publishLagMs: number | undefined;
  readonly oldestPendingAgeMs: number | undefined;
}

export function emitRelayMetrics(
  metrics: Metrics,
  logger: Logger,
  summary: RelayCounts,
  message = 'batch relayed',
): void {
  metrics.addMetric(RELAY_METRICS.eventsPublished, MetricUnit.Count, summary.published);
  metrics.addMetric(RELAY_METRICS.eventsQuarantined, MetricUnit.Count, summary.quarantined);
  metrics.addMetric(RELAY_METRICS.publishFailures, MetricUnit.Count, summary.publishFailures);
  metrics.addMetric(RELAY_METRICS.storeFailures, MetricUnit.Count, summary.storeFailures);
  if (summary.malformedRows !== undefined) {
    metrics.addMetric(RELAY_METRICS.malformedRows, MetricUnit.Count, summary.malformedRows);
  }
  if (summary.publishLagMs !== undefined) {
    metrics.addMetric(RELAY_METRICS.publishLag, MetricUnit.Milliseconds, summary.publishLagMs);
  }
  if (summary.oldestPendingAgeMs !== undefined) {
    metrics.addMetric(RELAY_METRICS.oldestPendingAge, MetricUnit.Milliseconds, summary.oldestPendingAgeMs);
  }
  logger.info(message, { ...summary });
}
