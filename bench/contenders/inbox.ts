/**
 * This project's contenders: the order consumer built by the same factory the Lambda entry uses (middy,
 * config from env, the DynamoDB inbox store), differing only in the variables a user would set.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClientConfig } from '../../lambdas/core/dynamodb-client-config.js';
import type { Effect } from '../../lambdas/core/effect.js';
import { readOrderConsumerConfig } from '../../lambdas/order-consumer/config.js';
import { createHandler } from '../../lambdas/order-consumer/create-handler.js';
import { orderPlacedEffect } from '../../lambdas/order-consumer/order-placed.js';
import type { BenchTables, ContainerDependencies, Contender } from './contender.js';
import { sendWritesOneByOne } from './order-writes.js';

export interface InboxContenderOptions {
  readonly name: string;
  readonly description: string;
  /** Variables on top of the required ones, exactly as they would be set on the function. */
  readonly env?: Readonly<Record<string, string>>;
  /** `side-effect` claims a lease, sends the two writes as separate requests, then completes. */
  readonly mode: 'transactional' | 'side-effect';
  /** Changes to the deployed client settings, for an ablation. */
  readonly clientOverrides?: (config: DynamoDBClientConfig) => DynamoDBClientConfig;
}

export const BENCH_CONSUMER = 'bench-consumer';

export function inboxContender(options: InboxContenderOptions): Contender {
  const configFor = (tables: BenchTables) =>
    readOrderConsumerConfig({
      INBOX_TABLE_NAME: tables.inbox,
      APP_TABLE_NAME: tables.app,
      CONSUMER_NAME: BENCH_CONSUMER,
      ...options.env,
    });
  return {
    name: options.name,
    description: options.description,
    // What the Lambda entry (handler.ts) builds for the same variables.
    clientConfig: (options.clientOverrides ?? ((config) => config))(
      dynamoDbClientConfig(configFor({ inbox: '-', app: '-', idempotency: '-' })),
    ),
    createContainer({ dynamoDb, tables }: ContainerDependencies) {
      const config = configFor(tables);
      const handler = createHandler({
        config,
        dynamoDb,
        // Per-batch telemetry costs the same for every batch size; silenced so the bench output stays readable.
        logger: new Logger({ serviceName: BENCH_CONSUMER, logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'MskInboxBench', serviceName: BENCH_CONSUMER }),
        effect:
          options.mode === 'side-effect'
            ? sideEffectOrders(DynamoDBDocumentClient.from(dynamoDb), tables.app)
            : undefined,
      });
      return { invoke: (event, context) => handler(event, context) };
    },
  };
}

/** The order consumer's own validation and writes, run under a lease instead of inside the transaction. */
function sideEffectOrders(documentClient: DynamoDBDocumentClient, appTableName: string): Effect {
  const transactional = orderPlacedEffect(appTableName);
  return async (input) => {
    const plan = await transactional(input);
    if (plan.kind !== 'transact') return plan;
    return { kind: 'call', run: () => sendWritesOneByOne(documentClient, plan.writes) };
  };
}
