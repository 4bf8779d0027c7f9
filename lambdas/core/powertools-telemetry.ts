import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { BatchSummary } from './batch-summary.js';
import type { BatchTelemetry } from './kafka-batch-handler.js';
import { BATCH_METRICS, EVENT_METRICS, OUTCOME_METRICS } from './metric-names.js';
import type { OutcomeStatus, RecordOutcome } from './outcome.js';

/** Records worth a log line of their own; the rest are only counted. */
const LOGGED: Partial<Record<OutcomeStatus, 'warn' | 'error'>> = {
  quarantined: 'warn',
  failed: 'error',
  'in-flight': 'warn',
};

/** Per-batch EMF metrics (every outcome, zeros included, so alarms never see missing data) and JSON logs. */
export function powertoolsTelemetry(logger: Logger, metrics: Metrics): BatchTelemetry {
  return {
    batchProcessed(summary: BatchSummary, outcomes: readonly RecordOutcome[]): void {
      for (const [status, name] of Object.entries(OUTCOME_METRICS) as [OutcomeStatus, string][]) {
        metrics.addMetric(name, MetricUnit.Count, summary.counts[status]);
      }
      metrics.addMetric(EVENT_METRICS.leaseLost, MetricUnit.Count, summary.leaseLost);
      metrics.addMetric(EVENT_METRICS.payloadConflicts, MetricUnit.Count, summary.payloadConflicts);
      metrics.addMetric(BATCH_METRICS.records, MetricUnit.Count, summary.records);
      metrics.addMetric(BATCH_METRICS.duration, MetricUnit.Milliseconds, summary.durationMs);
      if (summary.recordLatencyMs !== undefined) {
        metrics.addMetric(BATCH_METRICS.recordLatency, MetricUnit.Milliseconds, summary.recordLatencyMs);
      }
      for (const outcome of outcomes) {
        const level = LOGGED[outcome.status];
        // Coordinates, key and reason only: payload bytes are never logged.
        if (level) logger[level](`record ${outcome.status}`, { ...outcome });
      }
      logger.info('batch processed', { ...summary });
    },
  };
}
