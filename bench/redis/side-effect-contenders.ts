/**
 * The side-effect mode on each store, built as a team builds it (createInboxConsumer with the sample's schema
 * and the ledger's call): on DynamoDB (the default store: claim PutItem, complete UpdateItem) and on Redis
 * (`redisInbox({ client })`: claim and complete, one EVAL each). Same settings on both; the one not left at
 * its default is the container's completed-key cache, off, so a duplicate is answered by the store and the
 * redeliveries measure it (with the cache on, a duplicate seen by the same container costs no request on
 * either store: docs/benchmarks.md's inbox-claim rows).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createInboxConsumer } from '../../lambdas/core/index.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import { redisInbox } from '../../lambdas/redis/index.js';
import type { RedisScripting } from '../../lambdas/redis/redis-inbox-store.js';
import { OrderPlaced, skipOtherEventTypes } from '../../sample/order-consumer/order-placed.js';
import type { Container, Contender } from '../contenders/contender.js';
import { BENCH_CONSUMER, deployedClientConfig } from '../contenders/inbox.js';
import { type CallLedger, ledgerEffect } from './call-ledger.js';
import { type CommandModel, modelledRedis } from './redis-network-model.js';

/** Both contenders' settings beside the consumer's name: duplicates go to the store. */
export const SIDE_EFFECT_SETTINGS = { completedKeyCacheSize: 0 } as const satisfies Partial<HandlerSettings>;

const CALL = 'the call a no-op that records its run (bench/redis/call-ledger.ts)';

export const DYNAMODB_SIDE_EFFECT = {
  name: 'inbox-call-dynamodb',
  description: `side-effect mode on DynamoDB: claim PutItem, the call, fenced complete UpdateItem; ${CALL}`,
} as const;

export const REDIS_SIDE_EFFECT = {
  name: 'inbox-call-redis',
  description: `side-effect mode on Redis (redisInbox()): claim EVAL, the call, fenced complete EVAL; ${CALL}`,
} as const;

/** Per-batch telemetry costs the same on both stores; silenced so the bench output stays readable. */
function quietTelemetry() {
  return {
    logger: new Logger({ serviceName: BENCH_CONSUMER, logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'MskInboxBench', serviceName: BENCH_CONSUMER }),
  };
}

/** The DynamoDB contender for one sequence, its calls written to `ledger`; bench tables as the others get. */
export function dynamoDbSideEffectContender(ledger: CallLedger): Contender {
  return {
    ...DYNAMODB_SIDE_EFFECT,
    clientConfig: deployedClientConfig(SIDE_EFFECT_SETTINGS),
    createContainer({ dynamoDb, tables }) {
      const handler = createInboxConsumer({
        schema: OrderPlaced,
        skip: skipOtherEventTypes,
        effect: ledgerEffect(ledger),
        settings: { inboxTableName: tables.inbox, consumerName: BENCH_CONSUMER, ...SIDE_EFFECT_SETTINGS },
        dynamoDb,
        ...quietTelemetry(),
      });
      return { invoke: (event, context) => handler(event, context) };
    },
  };
}

/** The Redis container for one sequence: the store on `client`, every command through the round-trip model. */
export function redisSideEffectContainer(
  client: RedisScripting,
  model: CommandModel,
  ledger: CallLedger,
): Container {
  const handler = createInboxConsumer({
    schema: OrderPlaced,
    skip: skipOtherEventTypes,
    effect: ledgerEffect(ledger),
    store: redisInbox({ client: modelledRedis(client, model) }),
    settings: { consumerName: BENCH_CONSUMER, ...SIDE_EFFECT_SETTINGS },
    ...quietTelemetry(),
  });
  return { invoke: (event, context) => handler(event, context) };
}
