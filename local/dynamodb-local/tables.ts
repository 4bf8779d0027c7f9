import {
  type AttributeValue,
  CreateTableCommand,
  type DynamoDBClient,
  ScanCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { INBOX_ATTRIBUTES, QUARANTINE_INDEX } from '../../lambdas/core/inbox-rows.js';
import { OUTBOX_ATTRIBUTES } from '../../lambdas/core/outbox-rows.js';

/** The inbox table as the CDK InboxTable construct declares it: `pk`, TTL on `expires_at`, the sparse quarantine index. */
export async function createInboxTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: INBOX_ATTRIBUTES.pk, AttributeType: 'S' },
        { AttributeName: QUARANTINE_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: QUARANTINE_INDEX.sortKey, AttributeType: 'N' },
      ],
      KeySchema: [{ AttributeName: INBOX_ATTRIBUTES.pk, KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: QUARANTINE_INDEX.name,
          KeySchema: [
            { AttributeName: QUARANTINE_INDEX.partitionKey, KeyType: 'HASH' },
            { AttributeName: QUARANTINE_INDEX.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: INBOX_ATTRIBUTES.expiresAt, Enabled: true },
    }),
  );
}

/**
 * The outbox table as the CDK OutboxTable construct declares it: `pk` only, and a stream with new images
 * (the relay's filter reads the image's `change`: docs/outbox.md).
 */
export async function createOutboxTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: OUTBOX_ATTRIBUTES.pk, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: OUTBOX_ATTRIBUTES.pk, KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
}

/** A plain table keyed by `pk` (string), like the sample service's app table. */
export async function createAppTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTableKeyedBy(client, tableName, 'pk');
}

/** An on-demand table with one string partition key and nothing else. */
export async function createTableKeyedBy(
  client: DynamoDBClient,
  tableName: string,
  keyName: string,
): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
}

/** Every item of a table, page after page, read consistently: for checks after a run, never in one. */
export async function scanAll(
  client: DynamoDBClient,
  tableName: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
