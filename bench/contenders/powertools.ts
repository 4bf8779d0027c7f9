/**
 * The peer users reach for today: @aws-lambda-powertools/idempotency 2.35, set up as its docs recommend
 * for per-record work in a batch: `makeIdempotent` around the record function, `eventKeyJmesPath` on the
 * event id, the Lambda context registered on each invocation (so an in-progress record frees itself when
 * the invocation times out), the dedup window raised to our 7 days. The batch utility rejects Kafka
 * events and runs records in parallel (docs/design.md#peers), so the loop is the one a user writes instead:
 * records of a partition in order, partitions concurrently, the first failure reporting the rest of its
 * partition.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type DecodedPartition, decodeEvent } from '../../lambdas/core/decode-event.js';
import { dynamoDbClientConfig } from '../../lambdas/core/dynamodb-client-config.js';
import { DEFAULT_DEDUP_TTL_SECONDS } from '../../lambdas/core/inbox-rows.js';
import type { KafkaBatchItemFailure } from '../../lambdas/core/kafka-event.js';
import { DEFAULT_ORDERING } from '../../lambdas/core/ordering.js';
import { OrderPlaced, orderPlacedWrites } from '../../sample/order-consumer/order-placed.js';
import type { ContainerDependencies, Contender } from './contender.js';
import { sendWritesOneByOne } from './order-writes.js';

export const powertoolsContender: Contender = {
  name: 'powertools',
  description:
    'makeIdempotent per record (claim PutItem, 2 UpdateItem, complete UpdateItem), partitions concurrent',
  // The client our own function deploys with (same retries, timeouts and pool): only the library differs.
  clientConfig: dynamoDbClientConfig({ partitionConcurrency: 8, ordering: DEFAULT_ORDERING }),
  createContainer({ dynamoDb, tables }: ContainerDependencies) {
    const documentClient = DynamoDBDocumentClient.from(dynamoDb);
    const config = new IdempotencyConfig({
      eventKeyJmesPath: 'event_id',
      // The same payload-conflict check our inbox makes; the hash rides on the claim, no extra request.
      payloadValidationJmesPath: '@',
      expiresAfterSeconds: DEFAULT_DEDUP_TTL_SECONDS,
    });
    const applyOrder = makeIdempotent(
      async (order: OrderPlaced): Promise<void> => {
        await sendWritesOneByOne(documentClient, orderPlacedWrites(tables.app, order));
      },
      {
        persistenceStore: new DynamoDBPersistenceLayer({
          tableName: tables.idempotency,
          awsSdkV3Client: dynamoDb,
        }),
        config,
      },
    );
    const runPartition = async (partition: DecodedPartition): Promise<KafkaBatchItemFailure[]> => {
      for (const [index, record] of partition.records.entries()) {
        try {
          const json = record.json;
          const validation = json.ok ? OrderPlaced.safeParse(json.value) : undefined;
          if (!validation?.success) {
            throw new Error(`${record.coordinates} is not an OrderPlaced event`);
          }
          await applyOrder(validation.data);
        } catch {
          // Lambda commits up to the lowest reported offset: report this record and every later one.
          return partition.records.slice(index).map((later) => ({
            itemIdentifier: { partition: later.partitionKey, offset: later.offset as number },
          }));
        }
      }
      return [];
    };
    return {
      async invoke(event, context) {
        config.registerLambdaContext(context);
        const failures = await Promise.all(decodeEvent(event).map(runPartition));
        return { batchItemFailures: failures.flat() };
      },
    };
  },
};
