/**
 * This project's contenders: the order consumer built by the same factory the Lambda entry uses (config
 * from env, the DynamoDB inbox store), differing only in the variables a user would set.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inboxConfigFrom } from '../../lambdas/core/config.js';
import { dynamoDbClientConfig } from '../../lambdas/core/dynamodb-client-config.js';
import type { EffectPlan } from '../../lambdas/core/effect.js';
import { createInboxConsumer, type InboxEffectInput } from '../../lambdas/core/index.js';
import {
  type HandlerSettings,
  readHandlerSettings,
  settingsEnvironment,
} from '../../lambdas/core/settings.js';
import { type OrderPlaced, orderConsumer } from '../../sample/order-consumer/order-placed.js';
import type { BenchTables, ContainerDependencies, Contender } from './contender.js';
import { idempotentOrders } from './idempotent-orders.js';
import { sendWritesOneByOne } from './order-writes.js';

export interface InboxContenderOptions {
  readonly name: string;
  readonly description: string;
  /** Settings on top of the required ones, as the construct's `settings` prop would set them. */
  readonly settings?: Partial<HandlerSettings>;
  /**
   * `side-effect` claims a lease, sends the two writes as separate requests, then completes; `idempotent`
   * puts the order item once under a guard, no inbox row (idempotent-orders.ts).
   */
  readonly mode: 'transactional' | 'side-effect' | 'idempotent';
  /** Changes to the deployed client settings, for an ablation. */
  readonly clientOverrides?: (config: DynamoDBClientConfig) => DynamoDBClientConfig;
  /**
   * Emit one PaymentRequested per order to this topic through the outbox (docs/outbox.md), as the
   * pipeline's first consumer does; the container then needs `tables.outbox`.
   */
  readonly paymentsTopic?: string;
}

export const BENCH_CONSUMER = 'bench-consumer';

export function inboxContender(options: InboxContenderOptions): Contender {
  const settingsFor = (tables: BenchTables): Partial<HandlerSettings> => ({
    inboxTableName: tables.inbox,
    consumerName: BENCH_CONSUMER,
    ...(options.paymentsTopic === undefined ? {} : { outboxTableName: outboxOf(tables) }),
    ...options.settings,
  });
  return {
    name: options.name,
    description: options.description,
    clientConfig: (options.clientOverrides ?? ((config) => config))(deployedClientConfig(options.settings)),
    ...(options.mode === 'idempotent' ? { balancesFrom: 'orders' as const } : {}),
    createContainer({ dynamoDb, tables }: ContainerDependencies) {
      const consumer = orderConsumer(
        tables.app,
        options.paymentsTopic === undefined ? {} : { paymentsTopic: options.paymentsTopic },
      );
      const handler = createInboxConsumer({
        ...consumer,
        settings: settingsFor(tables),
        dynamoDb,
        // Per-batch telemetry costs the same for every batch size; silenced so the bench output stays readable.
        logger: new Logger({ serviceName: BENCH_CONSUMER, logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'MskInboxBench', serviceName: BENCH_CONSUMER }),
        ...(options.mode === 'side-effect'
          ? { effect: sideEffectOrders(DynamoDBDocumentClient.from(dynamoDb), consumer.effect) }
          : {}),
        ...(options.mode === 'idempotent' ? { effect: idempotentOrders(tables.app, consumer.effect) } : {}),
      });
      return { invoke: (event, context) => handler(event, context) };
    },
  };
}

/** The DynamoDB client the Lambda entry (handler.ts) builds for the same settings (retries, timeouts, pool). */
export function deployedClientConfig(settings: Partial<HandlerSettings> = {}): DynamoDBClientConfig {
  const deployed = inboxConfigFrom(
    readHandlerSettings({
      INBOX_TABLE_NAME: '-',
      CONSUMER_NAME: BENCH_CONSUMER,
      ...settingsEnvironment(settings),
    }).settings,
  );
  return dynamoDbClientConfig(deployed);
}

function outboxOf(tables: BenchTables): string {
  if (tables.outbox === undefined) throw new Error('an emitting contender needs an outbox table');
  return tables.outbox;
}

/** The order consumer's own validation and writes, run under a lease instead of inside the transaction. */
function sideEffectOrders(
  documentClient: DynamoDBDocumentClient,
  transactional: (input: InboxEffectInput<OrderPlaced>) => EffectPlan,
) {
  return (input: InboxEffectInput<OrderPlaced>): EffectPlan => {
    const plan = transactional(input);
    if (plan.kind !== 'transact') return plan;
    return { kind: 'call', run: () => sendWritesOneByOne(documentClient, plan.writes) };
  };
}
