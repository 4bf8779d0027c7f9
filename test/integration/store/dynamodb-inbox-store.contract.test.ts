/** The InboxStore contract (test/support/inbox-store-contract.ts) on DynamoDB Local: fresh tables per test. */
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createTestTables } from '../../support/dynamodb.js';
import { describeInboxStoreContract } from '../../support/inbox-store-contract.js';

const CONSUMER = 'contract-consumer';

describeInboxStoreContract('DynamoDbInboxStore on DynamoDB Local', {
  capabilities: { contentLimits: true },
  async makeHarness({ clock, ttlSeconds }) {
    const tables = await createTestTables();
    return {
      store: new DynamoDbInboxStore({
        client: tables.documentClient,
        tableName: tables.inboxTableName,
        consumer: CONSUMER,
        ttlSeconds,
        clock,
      }),
      appTableName: tables.appTableName,
      appItem: (pk) => tables.get(tables.appTableName, pk),
      holdsDedupRow: async (dedupKey) =>
        (await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, dedupKey))) !== undefined,
    };
  },
});
