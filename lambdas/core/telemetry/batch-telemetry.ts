import type { BatchSummary } from '../batch-summary.js';
import type { BatchTelemetry } from '../kafka-batch-handler.js';
import { BATCH_METRICS, EVENT_METRICS, OUTCOME_METRICS } from '../metric-names.js';
import type { OutcomeStatus, RecordOutcome } from '../outcome.js';
import type { ConsumerMetrics } from './emf-metrics.js';
import type { ConsumerLogger } from './json-logger.js';

/** Records worth a log line of their own; the rest are only counted. */
const LOGGED: Partial<Record<OutcomeStatus, 'warn' | 'error'>> = {
  quarantined: 'warn',
  failed: 'error',
  'in-flight': 'warn',
};

/** Per-batch EMF metrics (every outcome, zeros included, so alarms never see missing data) and JSON logs. */
export function batchTelemetry(logger: ConsumerLogger, metrics: ConsumerMetrics): BatchTelemetry {
  return {
    batchProcessed(summary: BatchSummary, outcomes: readonly RecordOutcome[]): void {
      for (const [status, name] of Object.entries(OUTCOME_METRICS) as [OutcomeStatus, string][]) {
        metrics.addMetric(name, 'Count', summary.counts[status]);
      }
      metrics.addMetric(EVENT_METRICS.leaseLost, 'Count', summary.leaseLost);
      metrics.addMetric(EVENT_METRICS.payloadConflicts, 'Count', summary.payloadConflicts);
      metrics.addMetric(BATCH_METRICS.records, 'Count', summary.records);
      metrics.addMetric(BATCH_METRICS.duration, 'Milliseconds', summary.durationMs);
      if (summary.recordLatencyMs !== undefined) {
        metrics.addMetric(BATCH_METRICS.recordLatency, 'Milliseconds', summary.recordLatencyMs);
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
