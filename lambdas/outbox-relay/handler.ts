/**
 * The outbox relay's Lambda entry (docs/outbox.md#the-relay): invoked by the outbox table's stream, through
 * a filter that lets only appends in (`change = appended`), it publishes each queue row's pending events
 * to Kafka in commit order and removes them from the row (relay-batch.ts). Settings, clients and the
 * Kafka producer are made once per container, on the first invocation; a missing or bad setting fails
 * every invocation with one ConfigError naming it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type Clock, systemClock } from '../core/clock.js';
import { KafkaPublisher } from './kafka-publisher.js';
import { PublishedIds } from './published-ids.js';
import type { Publisher } from './publisher.js';
import { relayBatch } from './relay-batch.js';
import { type RelayConfig, readRelayConfig } from './relay-config.js';
import { METRICS_NAMESPACE, RELAY_METRICS } from './relay-metric-names.js';
import { emitRelayMetrics } from './relay-metrics.js';

export type RelayHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

export interface RelayHandlerOptions {
  readonly config: RelayConfig;
  /** @default a KafkaPublisher on the config's brokers and auth */
  readonly publisher?: Publisher;
  /** @default a client with the timeouts below */
  readonly dynamoDb?: DynamoDBClient;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
}

/** Without a function name (a local run), the metrics' service dimension and the logger's service. */
const LOCAL_SERVICE_NAME = 'outbox-relay';

export function createRelayHandler(options: RelayHandlerOptions): RelayHandler {
  const { config } = options;
  const serviceName = config.functionName ?? LOCAL_SERVICE_NAME;
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
  const client =
    options.dynamoDb ??
    new DynamoDBClient({
      // As the consumer's (lambdas/core/dynamodb-client-config.ts): the SDK's retries pinned, no hung request.
      maxAttempts: 3,
      requestHandler: { requestTimeout: 5_000, connectionTimeout: 2_000, httpsAgent: { keepAlive: true } },
    });
  const clock = options.clock ?? systemClock;
  // Lives as long as the container: later invocations skip what it already published (published-ids.ts).
  const publishedIds = new PublishedIds();
  const log = {
    warn: (message: string, details: Record<string, unknown>) => logger.warn(message, details),
    error: (message: string, details: Record<string, unknown>) => logger.error(message, details),
  };

  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { logEvent: false }))
    .use(logMetrics(metrics))
    .use({
      onError: async (request) => {
        logger.error('batch failed as a whole', request.error as Error);
        metrics.addMetric(RELAY_METRICS.failedBatches, MetricUnit.Count, 1);
      },
    })
    .handler(async (event, context) => {
      const { response, summary } = await relayBatch(event, {
        table: { client, tableName: config.outboxTableName },
        publisher,
        clock,
        log,
        remainingMs: () => context.getRemainingTimeInMillis(),
        publishedIds,
      });
      emitRelayMetrics(metrics, logger, summary);
      return response;
    });
}

let relay: RelayHandler | undefined;

/** The function's handler: the relay made from the environment on the first invocation, then reused. */
export const handler: RelayHandler = async (event, context) => {
  relay ??= createRelayHandler({ config: readRelayConfig(process.env) });
  return relay(event, context);
};
