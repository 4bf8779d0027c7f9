/**
 * The Powertools consumer that does at cold start what ours does: the idempotent function and its client
 * (powertools-handler.ts), and Powertools Logger and Metrics built at module scope, which write the JSON log
 * lines and EMF metrics ours writes itself (docs/design.md#logs-and-metrics). A team on Powertools that
 * wants those logs and metrics deploys this; the bench weighs and cold-starts it beside ours and the bare
 * entry (bench/measure/cold-init.ts). Only the bench bundles it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { KafkaEvent } from '../../lambdas/core/kafka-event.js';
import { BATCH_METRICS, METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import { handler as idempotentBatch } from './powertools-handler.js';

const serviceName = process.env.CONSUMER_NAME;
const logger = new Logger({ serviceName });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });

export const handler = async (event: KafkaEvent, context: Context) => {
  logger.addContext(context);
  const started = Date.now();
  try {
    const response = await idempotentBatch(event, context);
    metrics.addMetric(BATCH_METRICS.duration, MetricUnit.Milliseconds, Date.now() - started);
    logger.info('batch done', { failures: response.batchItemFailures.length });
    return response;
  } catch (error) {
    metrics.addMetric(BATCH_METRICS.failedBatches, MetricUnit.Count, 1);
    throw error;
  } finally {
    metrics.publishStoredMetrics();
  }
};
