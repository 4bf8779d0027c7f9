/**
 * The Postgres outbox relay's Lambda entry (docs/postgres.md#the-relay): invoked on a schedule (its
 * construct, lib/postgres-outbox-relay.ts, sends an EventBridge event every minute; what the event says is
 * not read), it publishes the outbox's pending events until its time is nearly out (relay-loop.ts) and
 * returns what it did. Settings, the connection pool and the Kafka producer are made once per container,
 * on the first invocation; a missing or bad setting fails every invocation with one ConfigError naming it.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { type Clock, systemClock } from '../../core/clock.js';
import type { Publisher } from '../../outbox-relay/publisher.js';
import { emitRelayMetrics } from '../../outbox-relay/relay-metrics.js';
import { relayRuntime, withRelayMiddleware } from '../../outbox-relay/relay-runtime.js';
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
/**
 * A round's transaction waits on Kafka between its statements; a session idle in it longer than this is
 * ended by the server (its locks released, its events left pending), so a relay that vanished mid-round
 * (a frozen or lost environment whose socket stayed open) holds no key for long. Above any one send's
 * time, below the function's timeout (2 minutes by default).
 */
const ROUND_IDLE_TIMEOUT_MS = 60_000;
/** One connection listens, one runs the rounds and the end-of-invocation queries. */
const RELAY_CONNECTIONS = 2;

export function createPostgresRelayHandler(options: PostgresRelayHandlerOptions): PostgresRelayHandler {
  const { config } = options;
  const runtime = relayRuntime(config, LOCAL_SERVICE_NAME, options);
  const pool =
    options.pool ??
    connectionPool(
      { ...config.postgres, poolMax: RELAY_CONNECTIONS },
      {
        consumer: POOL_NAME,
        concurrency: RELAY_CONNECTIONS,
        credentials: awsCredentials(config.postgres),
        idleInTransactionTimeoutMs: ROUND_IDLE_TIMEOUT_MS,
      },
    );
  const clock = options.clock ?? systemClock;
  const queries = new OutboxRelayQueries({ schema: config.postgres.schema, clock });

  return withRelayMiddleware(runtime, async (_event: unknown, context) => {
    const summary = await runRelay({
      connect: () => pool.connect(),
      schema: config.postgres.schema,
      queries,
      publisher: runtime.publisher,
      settings: config.relay,
      nowMs: () => clock.nowMs(),
      remainingMs: () => context.getRemainingTimeInMillis(),
      log: runtime.log,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
    emitRelayMetrics(runtime.metrics, runtime.logger, summary, 'outbox relayed');
    return summary;
  });
}

let relay: PostgresRelayHandler | undefined;

/** The function's handler: the relay made from the environment on the first invocation, then reused. */
export const handler: PostgresRelayHandler = async (event, context) => {
  relay ??= createPostgresRelayHandler({ config: readPostgresRelayConfig(process.env) });
  return relay(event, context);
};
