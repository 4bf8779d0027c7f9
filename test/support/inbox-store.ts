import { DynamoDbInboxStore } from '../../lambdas/core/dynamodb-inbox-store.js';
import type { InboxEntry } from '../../lambdas/core/inbox-store.js';
import type { ManualClock } from './clocks.js';
import type { TestTables } from './dynamodb.js';
import { CONSUMER } from './order-consumer.js';

export function dynamoDbStore(
  tables: TestTables,
  clock: ManualClock,
  ttlSeconds = 604_800,
): DynamoDbInboxStore {
  return new DynamoDbInboxStore({
    client: tables.documentClient,
    tableName: tables.inboxTableName,
    consumer: CONSUMER,
    ttlSeconds,
    clock,
  });
}

export function entry(dedupKey: string, payloadHash = 'hash-1', source = 'orders-0@1'): InboxEntry {
  return { dedupKey, payloadHash, source };
}
