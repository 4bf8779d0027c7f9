/**
 * This project's consumer on Postgres: the sample's SQL effect (two upserts per order) committed with the
 * inbox row by `postgresInbox()`, built as a team builds it (createInboxConsumer with `store`). Its pool is
 * the store's own (lambdas/postgres/connection.ts: sized to the records at the database at once, unless
 * POSTGRES_POOL_MAX says otherwise), with every client's statements counted and held by the bench's
 * network model (bench/postgres/postgres-network-model.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createInboxConsumer } from '../../lambdas/core/index.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import { storeChoice, storeFactoryOf } from '../../lambdas/core/store-choice.js';
import { awsCredentials } from '../../lambdas/postgres/aws-credentials.js';
import { type ConnectionSource, connectionPool } from '../../lambdas/postgres/connection.js';
import { postgresInbox } from '../../lambdas/postgres/index.js';
import { readPostgresSettings } from '../../lambdas/postgres/postgres-settings.js';
import { orderSqlConsumer } from '../../sample/order-consumer/order-placed-sql.js';
import { modelledConnections, type StatementModel } from '../postgres/postgres-network-model.js';
import type { Container } from './contender.js';
import { BENCH_CONSUMER } from './inbox.js';

export interface PostgresContainerDependencies {
  /** The bench's server, `postgres://` with no password and no TLS. */
  readonly url: string;
  /** Fresh per sequence: the inbox tables and the sample's accounts and orders. */
  readonly schema: string;
  /** POSTGRES_POOL_MAX: 0 lets the store size its pool; PGlite's one session needs 1. */
  readonly poolMax: number;
  readonly model: StatementModel;
}

/** A container whose connections outlive its invocations, as a Lambda environment's do: closed after its sequence. */
export interface PostgresContainer extends Container {
  close(): Promise<void>;
}

export interface PostgresContender {
  readonly name: string;
  readonly description: string;
  createContainer(deps: PostgresContainerDependencies): PostgresContainer;
}

export interface PostgresContenderOptions {
  readonly name: string;
  readonly description: string;
  /** Settings on top of the required ones, as the construct's `settings` prop would set them. */
  readonly settings?: Partial<HandlerSettings>;
}

export function postgresContender(options: PostgresContenderOptions): PostgresContender {
  return {
    name: options.name,
    description: options.description,
    createContainer({ url, schema, poolMax, model }) {
      // Only these: the environment of the machine running the bench must not point the store elsewhere.
      const settings = readPostgresSettings({ auth: 'url', url, schema, poolMax }, {});
      let pool: ConnectionSource | undefined;
      // postgresInbox() as deployed, given the pool it would have built itself for the same context.
      const store = storeChoice('postgres', {
        create(context) {
          pool = modelledConnections(
            connectionPool(settings, {
              consumer: context.consumer,
              concurrency: context.concurrency,
              credentials: awsCredentials(settings),
            }),
            model,
          );
          return storeFactoryOf(postgresInbox({ pool, settings })).create(context);
        },
      });
      const handler = createInboxConsumer({
        ...orderSqlConsumer(schema),
        store,
        settings: { consumerName: BENCH_CONSUMER, ...options.settings },
        // Per-batch telemetry costs the same for every batch size; silenced so the bench output stays readable.
        logger: new Logger({ serviceName: BENCH_CONSUMER, logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'MskInboxBench', serviceName: BENCH_CONSUMER }),
      });
      return {
        invoke: (event, context) => handler(event, context),
        close: async () => {
          await pool?.end();
        },
      };
    },
  };
}
