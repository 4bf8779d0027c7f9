import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { inject } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { createAppTable, createInboxTable, scanAll } from '../../local/dynamodb-local/tables.js';

export interface TestTables {
  readonly client: DynamoDBClient;
  readonly documentClient: DynamoDBDocumentClient;
  readonly inboxTableName: string;
  readonly appTableName: string;
  get(tableName: string, pk: string): Promise<Record<string, unknown> | undefined>;
  scan(tableName: string): Promise<Record<string, unknown>[]>;
}

/** Fresh, uniquely named inbox and app tables on the run's DynamoDB Local. */
export async function createTestTables(): Promise<TestTables> {
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
  const documentClient = DynamoDBDocumentClient.from(client);
  const suffix = randomUUID().slice(0, 8);
  const inboxTableName = `inbox-${suffix}`;
  const appTableName = `app-${suffix}`;
  await Promise.all([createInboxTable(client, inboxTableName), createAppTable(client, appTableName)]);
  return {
    client,
    documentClient,
    inboxTableName,
    appTableName,
    async get(tableName, pk) {
      const { Item } = await documentClient.send(
        new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }),
      );
      return Item;
    },
    async scan(tableName) {
      return (await scanAll(client, tableName)).map((item) => unmarshall(item));
    },
  };
}
