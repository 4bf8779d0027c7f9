/**
 * The InboxStore contract (test/support/inbox-store-contract.ts) on the in-memory store the engine's unit
 * tests use: it must answer as the DynamoDB store does, which the same suite checks on DynamoDB Local.
 */

import { dynamoDbEffects } from '../../support/inbox-store-contract/dynamodb-effects.js';
import { describeInboxStoreContract } from '../../support/inbox-store-contract.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';

const APP_TABLE = 'app';

describeInboxStoreContract('MemoryInboxStore', {
  capabilities: {
    contentLimits: {
      unsupported:
        "DynamoDB's size limits (400 KB items, 2,048-byte keys) are measured on its own encoding, which memory does not model",
    },
    twoWritesOnOneItemRefused: true,
    stepsSeeEarlierSteps: {
      unsupported:
        'it models TransactWriteItems: every condition judged before any write, one action per item',
    },
    storeConstraints: {
      unsupported: 'it models DynamoDB, which has no constraints of its own on items (a rule is a condition)',
    },
  },
  async makeHarness({ clock, ttlSeconds }) {
    const store = new MemoryInboxStore(clock, ttlSeconds);
    return {
      ...dynamoDbEffects(APP_TABLE),
      store,
      appItem: async (pk) => store.appItem(APP_TABLE, { pk }),
      holdsDedupRow: async (dedupKey) => store.rows.has(dedupKey),
    };
  },
});
