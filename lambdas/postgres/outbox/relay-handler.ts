/**
 * The Postgres outbox relay's Lambda entry (docs/postgres.md#the-relay): invoked on a schedule (its
 * construct, lib/postgres-outbox-relay.ts, sends an EventBridge event every minute; what the event says is
 * not read), it publishes the outbox's pending events until its time is nearly out (relay-loop.ts) and
 * returns what it did. Settings, the connection pool and the Kafka producer are made once per container,
 * on the first invocation; a missing or bad setting fails every invocation with one ConfigError naming it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type Clock, systemClock } from '../../core/clock.js';
import { KafkaPublisher } from '../../outbox-relay/kafka-publisher.js';
import type { Publisher } from '../../outbox-relay/publisher.js';
import { METRICS_NAMESPACE, RELAY_METRICS } from '../../outbox-relay/relay-metric-names.js';
import { emitRelayMetrics } from '../../outbox-relay/relay-metrics.js';
import { awsCredentials } from '../aws-credentials.js';
import { type ConnectionSource, connectionPool } from '../connection.js';
import { type RelayRunSummary, runRelay } from './relay-loop.js';
import { OutboxRelayQueries } from './relay-queries.js';
import { type PostgresRelayConfig, readPostgresRelayConfig } from './relay-settings.js';

export type PostgresRelayHandler = (event: unknown, context: Context) => Promise<RelayRunSummary>;

export interface PostgresRelayHandlerOptions {
  readonly config: PostgresRelayConfig;
  /** @default a KafkaPublisher on the config's brokers and auth */
  readonly publisher?: Publisher;
  /** @default a pool of two connections (one listens, one runs the rounds) from the config's settings */
  readonly pool?: ConnectionSource;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  /** @default setTimeout: how the loop waits when it does not listen */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Without a function name (a local run), the metrics' service dimension and the logger's service. */
const LOCAL_SERVICE_NAME = 'postgres-outbox-relay';
/** The pool's name in pg_stat_activity (`application_name`: msk-inbox:<this>). */
const POOL_NAME = 'outbox-relay';
/** One connection listens, one runs the rounds and the end-of-invocation queries. */
const RELAY_CONNECTIONS = 2;

export function createPostgresRelayHandler(options: PostgresRelayHandlerOptions): PostgresRelayHandler {
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
  const pool =
    options.pool ??
    connectionPool(
      { ...config.postgres, poolMax: RELAY_CONNECTIONS },
      { consumer: POOL_NAME, concurrency: RELAY_CONNECTIONS, credentials: awsCredentials(config.postgres) },
    );
  const clock = options.clock ?? systemClock;
  const queries = new OutboxRelayQueries({ schema: config.postgres.schema, clock });
  const log = {
    warn: (message: string, details: Record<string, unknown>) => logger.warn(message, details),
    error: (message: string, details: Record<string, unknown>) => logger.error(message, details),
  };

  return middy<unknown, RelayRunSummary, Error, Context>()
    .use(injectLambdaContext(logger, { logEvent: false }))
    .use(logMetrics(metrics))
    .use({
      onError: async (request) => {
        logger.error('invocation failed as a whole', request.error as Error);
        metrics.addMetric(RELAY_METRICS.failedBatches, MetricUnit.Count, 1);
      },
    })
    .handler(async (_event, context) => {
      const summary = await runRelay({
        connect: () => pool.connect(),
        schema: config.postgres.schema,
        queries,
        publisher,
        settings: config.relay,
        nowMs: () => clock.nowMs(),
        remainingMs: () => context.getRemainingTimeInMillis(),
        log,
        ...(options.sleep ? { sleep: options.sleep } : {}),
      });
      emitRelayMetrics(metrics, logger, summary, 'outbox relayed');
      return summary;
    });
}

let relay: PostgresRelayHandler | undefined;

/** The function's handler: the relay made from the environment on the first invocation, then reused. */
export const handler: PostgresRelayHandler = async (event, context) => {
  relay ??= createPostgresRelayHandler({ config: readPostgresRelayConfig(process.env) });
  return relay(event, context);
};
