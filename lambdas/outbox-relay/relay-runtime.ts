/**
 * What both relays' Lambda entries make once per container (the DynamoDB relay's handler.ts, the Postgres
 * relay's lambdas/postgres/outbox/relay-handler.ts): the logger and metrics named after the function, the
 * Kafka publisher on the configured brokers, and the middy wrapper that flushes the metrics and counts an
 * invocation that failed as a whole.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { KafkaPublisher } from './kafka-publisher.js';
import type { Publisher } from './publisher.js';
import type { KafkaTarget } from './relay-config.js';
import { METRICS_NAMESPACE, RELAY_METRICS } from './relay-metric-names.js';

export interface RelayRuntimeOptions {
  readonly publisher?: Publisher;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export interface RelayRuntime {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly publisher: Publisher;
  /** The logger as the relays' loops take it. */
  readonly log: {
    readonly warn: (message: string, details: Record<string, unknown>) => void;
    readonly error: (message: string, details: Record<string, unknown>) => void;
  };
}

/**
 * `localServiceName` names the metrics' `service` dimension and the logger's service without a function
 * name (a local run); deployed, it is the function's name (RELAY_METRICS_DIMENSION).
 */
export function relayRuntime(
  config: KafkaTarget,
  localServiceName: string,
  options: RelayRuntimeOptions,
): RelayRuntime {
  const serviceName = config.functionName ?? localServiceName;
  const logger = options.logger ?? new Logger({ serviceName });
  const metrics =
    options.metrics ??
    new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE, serviceName });
  const publisher =
    options.publisher ??
    new KafkaPublisher({
      brokers: config.brokers,
      auth: config.kafkaAuth,
      ...(config.region ? { region: config.region } : {}),
      log: (message, details) => logger.error(message, details),
    });
  return {
    logger,
    metrics,
    publisher,
    log: {
      warn: (message, details) => logger.warn(message, details),
      error: (message, details) => logger.error(message, details),
    },
  };
}

/** The handler with the relays' middleware: context in the logs, metrics flushed, a whole failure counted. */
export function withRelayMiddleware<TEvent, TResult>(
  runtime: RelayRuntime,
  handler: (event: TEvent, context: Context) => Promise<TResult>,
): (event: TEvent, context: Context) => Promise<TResult> {
  const { logger, metrics } = runtime;
  return middy<TEvent, TResult, Error, Context>()
    .use(injectLambdaContext(logger, { logEvent: false }))
    .use(logMetrics(metrics))
    .use({
      onError: async (request) => {
        logger.error('invocation failed as a whole', request.error as Error);
        metrics.addMetric(RELAY_METRICS.failedBatches, MetricUnit.Count, 1);
      },
    })
    .handler(handler);
}
