import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CapacityMeter } from '../../../bench/cost/capacity-meter.js';
import { localDynamoDbClient } from '../../../local/dynamodb-local/client.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';

describe('the capacity meter, on requests DynamoDB Local answers', () => {
  let tables: TestTables;
  const admin = localDynamoDbClient(inject('dynamoDbEndpoint'));
  beforeAll(async () => {
    tables = await createTestTables();
  });
  afterAll(() => {
    admin.destroy();
    tables.client.destroy();
  });

  it('bills each request kind by the items it touched, refusals included', async () => {
    const { documentClient: db, inboxTableName: inbox, appTableName: app } = tables;
    const meter = new CapacityMeter(tables.client, admin, [inbox, app]);
    await meter.begin();

    // A new record: its inbox row and two updates in one transaction, each under 1 KB: 3 × 2.
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: { TableName: inbox, Item: { pk: 'row#1' }, ConditionExpression: 'attribute_not_exists(pk)' },
          },
          {
            Update: {
              TableName: app,
              Key: { pk: 'account#1' },
              UpdateExpression: 'SET balance = :b',
              ExpressionAttributeValues: { ':b': 5 },
            },
          },
          {
            Update: {
              TableName: app,
              Key: { pk: 'order#1' },
              UpdateExpression: 'SET amount = :a',
              ExpressionAttributeValues: { ':a': 5 },
            },
          },
        ],
      }),
    );
    // Its duplicate, refused on the row that stands: 1.
    await expect(
      db.send(
        new PutCommand({
          TableName: inbox,
          Item: { pk: 'row#1' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toThrow();
    // A standard update: 1.
    await db.send(
      new UpdateCommand({
        TableName: app,
        Key: { pk: 'account#1' },
        UpdateExpression: 'SET balance = :b',
        ExpressionAttributeValues: { ':b': 6 },
      }),
    );
    // A strongly consistent read of a small item (1 RRU) and an eventually consistent one of a missing item (0.5).
    await db.send(new GetCommand({ TableName: app, Key: { pk: 'account#1' }, ConsistentRead: true }));
    await db.send(new GetCommand({ TableName: app, Key: { pk: 'nobody' } }));
    // A ConditionCheck (2) beside a Put of a 1,500-byte item (2 × 2).
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: app,
              Key: { pk: 'account#1' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: app, Item: { pk: 'big', note: 'x'.repeat(1500) } } },
        ],
      }),
    );

    expect(await meter.end()).toEqual({ writeUnits: 6 + 1 + 1 + 6, readUnits: 1.5 });
  });
});
