import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { CachingInboxStore } from '../core/caching-inbox-store.js';
import { type Clock, systemClock } from '../core/clock.js';
import { CompletedKeyCache } from '../core/completed-key-cache.js';
import { DynamoDbInboxStore } from '../core/dynamodb-inbox-store.js';
import type { Effect } from '../core/effect.js';
import { type BatchTelemetry, createKafkaBatchHandler } from '../core/kafka-batch-handler.js';
import type { KafkaBatchResponse } from '../core/kafka-event.js';
import { BATCH_METRICS } from '../core/metric-names.js';
import { powertoolsTelemetry } from '../core/powertools-telemetry.js';
import type { OrderConsumerConfig } from './config.js';
import { orderPlacedEffect, skipOtherEventTypes } from './order-placed.js';

export interface OrderConsumerDependencies {
  readonly config: OrderConsumerConfig;
  readonly dynamoDb: DynamoDBClient;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default a Powertools Logger named after the consumer */
  readonly logger?: Logger;
  /** @default Powertools Metrics in the configured namespace, dimension service = consumer */
  readonly metrics?: Metrics;
  /** Extra observer of each batch (tests read outcomes through it). */
  readonly observe?: BatchTelemetry;
  /**
   * What each record does; the benchmark runs the same orders in side-effect mode through it.
   * @default the OrderPlaced effect in transactional mode
   */
  readonly effect?: Effect;
}

/** Builds the middy handler chain; the Lambda entry and the tests both use it. */
export function createHandler(deps: OrderConsumerDependencies) {
  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? new Logger({ serviceName: config.consumerName });
  const metrics =
    deps.metrics ?? new Metrics({ namespace: config.metricsNamespace, serviceName: config.consumerName });
  const documentClient = DynamoDBDocumentClient.from(deps.dynamoDb, {
    marshallOptions: { removeUndefinedValues: true },
  });
  const telemetry = powertoolsTelemetry(logger, metrics);
  const processBatch = createKafkaBatchHandler({
    ...config,
    store: new CachingInboxStore({
      store: new DynamoDbInboxStore({
        client: documentClient,
        tableName: config.inboxTableName,
        consumer: config.consumerName,
        ttlSeconds: config.dedupTtlSeconds,
        clock,
      }),
      // Lives as long as this handler, i.e. the Lambda container: redelivered duplicates cost no request.
      cache: new CompletedKeyCache(config.completedKeyCacheSize, clock),
      ttlSeconds: config.dedupTtlSeconds,
      clock,
    }),
    effect: deps.effect ?? orderPlacedEffect(config.appTableName),
    skipRecord: skipOtherEventTypes,
    clock,
    telemetry: deps.observe
      ? {
          batchProcessed: (summary, outcomes) => {
            telemetry.batchProcessed(summary, outcomes);
            deps.observe?.batchProcessed(summary, outcomes);
          },
        }
      : telemetry,
  });

  return (
    middy<unknown, KafkaBatchResponse, Error, Context>()
      // Never the event: its records are payload (POWERTOOLS_LOGGER_LOG_EVENT would log it otherwise).
      .use(injectLambdaContext(logger, { logEvent: false }))
      .use(logMetrics(metrics))
      .handler(async (event, context) => {
        try {
          return await processBatch(event, context);
        } catch (error) {
          // The whole batch is retried: say why, once, before Lambda does.
          logger.error('batch failed as a whole', error as Error);
          metrics.addMetric(BATCH_METRICS.failedBatches, MetricUnit.Count, 1);
          throw error;
        }
      })
  );
}
