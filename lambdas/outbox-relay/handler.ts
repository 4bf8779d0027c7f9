/**
 * The outbox relay's Lambda entry (docs/outbox.md#the-relay): invoked by the outbox table's stream, through
 * a filter that lets only appends in (`change = appended`), it publishes each queue row's pending events
 * to Kafka in commit order and removes them from the row (relay-batch.ts). Settings, clients and the
 * Kafka producer are made once per container, on the first invocation; a missing or bad setting fails
 * every invocation with one ConfigError naming it.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type Clock, systemClock } from '../core/clock.js';
import { PublishedIds } from './published-ids.js';
import type { Publisher } from './publisher.js';
import { relayBatch } from './relay-batch.js';
import { type RelayConfig, readRelayConfig } from './relay-config.js';
import { emitRelayMetrics } from './relay-metrics.js';
import { relayRuntime, withRelayMiddleware } from './relay-runtime.js';

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
  const runtime = relayRuntime(config, LOCAL_SERVICE_NAME, options);
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

  return withRelayMiddleware(runtime, async (event: DynamoDBStreamEvent, context) => {
    const { response, summary } = await relayBatch(event, {
      table: { client, tableName: config.outboxTableName },
      publisher: runtime.publisher,
      clock,
      log: runtime.log,
      remainingMs: () => context.getRemainingTimeInMillis(),
      publishedIds,
    });
    emitRelayMetrics(runtime.metrics, runtime.logger, summary);
    return response;
  });
}

let relay: RelayHandler | undefined;

/** The function's handler: the relay made from the environment on the first invocation, then reused. */
export const handler: RelayHandler = async (event, context) => {
  relay ??= createRelayHandler({ config: readRelayConfig(process.env) });
  return relay(event, context);
};
