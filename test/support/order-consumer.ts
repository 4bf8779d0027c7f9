import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { BatchSummary } from '../../lambdas/core/batch-summary.js';
import { createObservedInboxConsumer } from '../../lambdas/core/create-inbox-consumer.js';
import type { KafkaBatchResponse } from '../../lambdas/core/kafka-event.js';
import type { RecordOutcome } from '../../lambdas/core/outcome.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import type { ConsumerLogger } from '../../lambdas/core/telemetry/json-logger.js';
import * as orderPlaced from '../../sample/order-consumer/order-placed.js';
import { lambdaContext, ManualClock } from './clocks.js';
import type { TestTables } from './dynamodb.js';

export const CONSUMER = 'order-consumer';

export interface OrderConsumerUnderTest {
  readonly clock: ManualClock;
  readonly metrics: Metrics;
  /** Invokes the handler with a context whose deadline is `remainingMs` away. */
  invoke(event: unknown, remainingMs?: number): Promise<KafkaBatchResponse>;
  /** Outcomes of the most recent batch, as the telemetry saw them. */
  lastOutcomes(): readonly RecordOutcome[];
  lastSummary(): BatchSummary | undefined;
}

/**
 * The order consumer (the sample's schema, skip and effect: sample/order-consumer/order-placed.ts, which
 * the harness builds on too) built as its Lambda entry builds it (createInboxConsumer, here through createObservedInboxConsumer with
 * the test's clock and observer), on the given tables.
 */
export function orderConsumer(
  tables: TestTables,
  options: {
    dynamoDb?: DynamoDBClient;
    /** On top of the tables and the consumer name. */
    settings?: Partial<HandlerSettings>;
    clock?: ManualClock;
    /** @default a silent one */
    logger?: ConsumerLogger;
  } = {},
): OrderConsumerUnderTest {
  const clock = options.clock ?? new ManualClock();
  const metrics = new Metrics({ namespace: 'MskInboxTest', serviceName: CONSUMER });
  let outcomes: readonly RecordOutcome[] = [];
  let summary: BatchSummary | undefined;
  const handler = createObservedInboxConsumer(
    {
      ...orderPlaced.orderConsumer(tables.appTableName),
      settings: { inboxTableName: tables.inboxTableName, consumerName: CONSUMER, ...options.settings },
      dynamoDb: options.dynamoDb ?? tables.client,
      logger: options.logger ?? new Logger({ serviceName: CONSUMER, logLevel: 'SILENT' }),
      metrics,
    },
    {
      clock,
      observe: {
        batchProcessed(batchSummary, batchOutcomes) {
          summary = batchSummary;
          outcomes = batchOutcomes;
        },
      },
    },
  );
  return {
    clock,
    metrics,
    invoke: (event, remainingMs = 60_000) =>
      handler(event, lambdaContext(clock, remainingMs)) as Promise<KafkaBatchResponse>,
    lastOutcomes: () => outcomes,
    lastSummary: () => summary,
  };
}
