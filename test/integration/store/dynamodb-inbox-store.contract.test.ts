/** The InboxStore contract (test/support/inbox-store-contract.ts) on DynamoDB Local: fresh tables per test. */
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { createTestTables } from '../../support/dynamodb.js';
import { dynamoDbEffects } from '../../support/inbox-store-contract/dynamodb-effects.js';
import { describeInboxStoreContract } from '../../support/inbox-store-contract.js';

const CONSUMER = 'contract-consumer';

describeInboxStoreContract('DynamoDbInboxStore on DynamoDB Local', {
  capabilities: {
    contentLimits: true,
    twoWritesOnOneItemRefused: true,
    stepsSeeEarlierSteps: {
      unsupported:
        'TransactWriteItems judges every action on the items as they were before it, and refuses two actions on one item',
    },
    storeConstraints: {
      unsupported:
        "DynamoDB has no constraints of its own on items: a rule is an action's condition (business-rejected)",
    },
  },
  async makeHarness({ clock, ttlSeconds }) {
    const tables = await createTestTables();
    return {
      ...dynamoDbEffects(tables.appTableName),
      store: new DynamoDbInboxStore({
        client: tables.documentClient,
        tableName: tables.inboxTableName,
        consumer: CONSUMER,
        ttlSeconds,
        clock,
      }),
      appItem: (pk) => tables.get(tables.appTableName, pk),
      holdsDedupRow: async (dedupKey) =>
        (await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, dedupKey))) !== undefined,
    };
  },
});
