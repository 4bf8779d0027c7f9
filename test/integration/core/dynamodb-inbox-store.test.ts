import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { dynamoDbStore, entry } from '../../support/inbox-store.js';
import { CONSUMER } from '../../support/order-consumer.js';
import { faultyClient } from '../../support/sdk-faults.js';

// What every inbox store does (claim, complete, release, commit, expiry, quarantine) is checked on both
// stores by the contract suite (test/support/inbox-store-contract.ts); these are DynamoDB's own: the row's
// attributes, the requests sent, truncation to the item limit.
describe('DynamoDbInboxStore against DynamoDB Local', () => {
  let tables: TestTables;
  let clock: ManualClock;
  beforeEach(async () => {
    tables = await createTestTables();
    clock = new ManualClock();
  });
  const row = (key: string) => tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, key));

  describe('side-effect mode', () => {
    it('writes an IN_PROGRESS row with the attempt token and lease when a key is claimed', async () => {
      const store = dynamoDbStore(tables, clock);
      const leaseUntilMs = clock.nowMs() + 70_000;

      const claim = await store.claim(entry('k1'), leaseUntilMs);

      expect(claim.kind).toBe('claimed');
      const lease = claim.kind === 'claimed' ? claim.lease : undefined;
      expect(await row('k1')).toMatchObject({
        status: 'IN_PROGRESS',
        lease_owner: lease?.token,
        lease_until: leaseUntilMs,
        payload_hash: 'hash-1',
      });
    });
  });

  describe('transactional mode', () => {
    const effectWrite = (tableName: string, pk: string) => ({
      Update: {
        TableName: tableName,
        Key: { pk },
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    });

    it('sends one TransactWriteItems with a fresh idempotency token per commit, so an SDK retry is not applied twice', async () => {
      const faulty = faultyClient(() => undefined);
      const store = new DynamoDbInboxStore({
        client: DynamoDBDocumentClient.from(faulty.client),
        tableName: tables.inboxTableName,
        consumer: CONSUMER,
        ttlSeconds: 604_800,
        clock,
      });

      await store.commit(entry('k1'), [effectWrite(tables.appTableName, 'counter')]);
      await store.commit(entry('k2'), [effectWrite(tables.appTableName, 'counter')]);

      const tokens = faulty.attempts.map((call) => call.input.ClientRequestToken);
      expect(faulty.attempts.map((call) => call.commandName)).toEqual([
        'TransactWriteItemsCommand',
        'TransactWriteItemsCommand',
      ]);
      expect(new Set(tokens).size).toBe(2);
      expect(tokens.every((token) => typeof token === 'string' && token.length > 0)).toBe(true);
    });

    it('commits the inbox row alone with one conditional put when the effect has no writes', async () => {
      const store = dynamoDbStore(tables, clock);

      expect(await store.commit(entry('k1'), [])).toEqual({ kind: 'committed' });
      expect(await store.commit(entry('k1'), [])).toMatchObject({ kind: 'duplicate' });
      expect(await row('k1')).toMatchObject({ status: 'COMPLETED' });
    });
  });

  describe('quarantine', () => {
    const raw = {
      topic: 'orders',
      partition: 0,
      offset: 7,
      timestamp: 1,
      timestampType: 'CREATE_TIME',
      key: null,
      value: 'bm90IGpzb24=',
      headers: [{ weird: 'not bytes' }],
    };

    it('writes one QUARANTINED row per record and nothing new on redelivery', async () => {
      const store = dynamoDbStore(tables, clock);
      const quarantine = {
        coordinates: 'orders-0@7',
        reason: 'invalid-event',
        message: 'not JSON',
        record: raw,
      };

      expect(await store.quarantine(quarantine)).toBe('quarantined');
      clock.advance(1_000);
      expect(await store.quarantine({ ...quarantine, message: 'again' })).toBe('already-quarantined');

      const item = await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@7`);
      expect(item).toMatchObject({
        status: 'QUARANTINED',
        reason: 'invalid-event',
        error: 'not JSON',
        quarantine_consumer: CONSUMER,
        quarantined_at: clock.nowMs() - 1_000,
        record: { topic: 'orders', partition: 0, offset: 7, value: 'bm90IGpzb24=', value_truncated: false },
      });
      // Quarantine rows wait for an operator: no TTL.
      expect(item).not.toHaveProperty('expires_at');
      expect(JSON.parse(String((item?.record as Record<string, unknown> | undefined)?.headers))).toEqual(
        raw.headers,
      );
    });

    it('truncates and flags a value that would pass the 400 KB item limit', async () => {
      const store = dynamoDbStore(tables, clock);
      const huge = Buffer.alloc(1_000_000, 7).toString('base64');

      await store.quarantine({
        coordinates: 'orders-0@8',
        reason: 'invalid-event',
        message: 'too big',
        record: { ...raw, offset: 8, value: huge },
      });

      const item = await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@8`);
      const record = (item?.record ?? {}) as Record<string, unknown>;
      expect(record.value_truncated).toBe(true);
      expect(record.value_chars).toBe(huge.length);
      expect(String(record.value).length).toBeLessThan(huge.length);
    });
  });
});
