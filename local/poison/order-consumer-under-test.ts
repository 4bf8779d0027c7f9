/**
 * The harness's orders consumer (local/orders/) in its deployed handler chain (createInboxConsumer, here
 * through createObservedInboxConsumer) on given tables, as the poison promise checks it: outcomes read
 * through its telemetry, state read back from DynamoDB.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DynamoDBClient, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  createObservedInboxConsumer,
  type InboxConsumerOptions,
} from '../../lambdas/core/create-inbox-consumer.js';
import { quarantineRowKey } from '../../lambdas/core/inbox-rows.js';
import type { KafkaBatchResponse } from '../../lambdas/core/kafka-event.js';
import type { RecordOutcome } from '../../lambdas/core/outcome.js';
import type { ValueFormat } from '../../lambdas/core/value-format.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import { createLambdaContext } from '../esm/lambda-function.js';
import type { ConsumerUnderTest } from './poison-promise.js';

export interface PoisonTables {
  readonly client: DynamoDBClient;
  readonly inboxTableName: string;
  readonly appTableName: string;
}

/** `valueFormat`: how the values are read (JSON when left out). */
export function orderConsumerUnderTest(
  tables: PoisonTables,
  consumerName: string,
  valueFormat?: ValueFormat,
): ConsumerUnderTest {
  const invoke = observedInvoke(
    {
      ...orderConsumer(tables.appTableName),
      ...(valueFormat === undefined ? {} : { valueFormat }),
      settings: { inboxTableName: tables.inboxTableName, consumerName },
      dynamoDb: tables.client,
    },
    consumerName,
  );
  return {
    invoke,
    async appliedState() {
      const tablesState = await Promise.all([
        scanAll(tables.client, tables.inboxTableName),
        scanAll(tables.client, tables.appTableName),
      ]);
      return JSON.stringify(tablesState);
    },
    async hasQuarantineRow(quarantineKey) {
      const { Item } = await tables.client.send(
        new GetItemCommand({
          TableName: tables.inboxTableName,
          Key: { pk: { S: quarantineRowKey(consumerName, quarantineKey) } },
          ConsistentRead: true,
        }),
      );
      return Item !== undefined;
    },
  };
}

/** Every item, sorted by key, so two scans of the same content compare equal. */
async function scanAll(client: DynamoDBClient, tableName: string): Promise<unknown[]> {
  const items: { pk?: { S?: string } }[] = [];
  let ExclusiveStartKey: ScanCommand['input']['ExclusiveStartKey'];
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }),
    );
    items.push(...((page.Items ?? []) as { pk?: { S?: string } }[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort((a, b) => (a.pk?.S ?? '').localeCompare(b.pk?.S ?? ''));
}

/**
 * A consumer's deployed handler chain (createInboxConsumer, through createObservedInboxConsumer) with silent
 * logs and metrics, invoked as the poison promise does: each batch's response and the outcomes its
 * telemetry saw. One definition for every store's consumer under test.
 */
export function observedInvoke<Schema extends StandardSchemaV1 | undefined>(
  options: InboxConsumerOptions<Schema>,
  consumerName: string,
): ConsumerUnderTest['invoke'] {
  let outcomes: readonly RecordOutcome[] = [];
  const handler = createObservedInboxConsumer(
    {
      ...options,
      logger: new Logger({ serviceName: consumerName, logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'MskInboxPoison', serviceName: consumerName }),
    },
    {
      observe: {
        batchProcessed: (_summary, batch) => {
          outcomes = batch;
        },
      },
    },
  );
  let request = 0;
  const context = () => {
    request += 1;
    return createLambdaContext(
      { functionName: consumerName },
      { requestId: `poison-${request}`, remainingMs: () => 60_000 },
    );
  };
  return async (event) => {
    const response = (await handler(event, context())) as KafkaBatchResponse;
    return { response, outcomes };
  };
}
