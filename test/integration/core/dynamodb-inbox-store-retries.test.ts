/**
 * The SDK retries a request whose answer was lost (a timeout after DynamoDB applied the write). The retry
 * then meets the row its own first try wrote: found by the fault-schedule soak (local/soak), each of these
 * was misread as another attempt's doing.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { localDynamoDbClient } from '../../../local/dynamodb-local/client.js';
import { ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { entry } from '../../support/inbox-store.js';
import { CONSUMER } from '../../support/order-consumer.js';
import { timeoutError } from '../../support/sdk-faults.js';

describe('DynamoDB inbox store when the SDK retries a write DynamoDB already applied', () => {
  let tables: TestTables;
  let clock: ManualClock;
  beforeEach(async () => {
    tables = await createTestTables();
    clock = new ManualClock();
  });

  /**
   * A store whose next `command` write reaches DynamoDB and then times out, once: the SDK (maxAttempts 3,
   * as deployed) sends it again. `sent` counts the requests that reached DynamoDB.
   */
  function storeLosingOneAnswer(command: 'PutItemCommand' | 'UpdateItemCommand' | 'DeleteItemCommand') {
    const client = localDynamoDbClient(inject('dynamoDbEndpoint'), 3);
    const requests = { sent: 0, armed: false };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName !== command || !requests.armed) return result;
        requests.sent++;
        if (requests.sent === 1) {
          throw timeoutError();
        }
        return result;
      },
      // Inside the retry loop, like a lost answer.
      { step: 'deserialize', name: 'loseOneAnswer', priority: 'low' },
    );
    const store = new DynamoDbInboxStore({
      client: DynamoDBDocumentClient.from(client),
      tableName: tables.inboxTableName,
      consumer: CONSUMER,
      ttlSeconds: 604_800,
      clock,
    });
    return { store, requests };
  }

  const row = (key: string) => tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, key));

  it('claims the key when the retry of its claim finds the row the first try wrote', async () => {
    const { store, requests } = storeLosingOneAnswer('PutItemCommand');
    requests.armed = true;

    const claim = await store.claim(entry('k1'), clock.nowMs() + 60_000);

    expect(requests.sent).toBe(2);
    expect(claim.kind).toBe('claimed');
    const token = claim.kind === 'claimed' ? claim.lease.token : undefined;
    expect(await row('k1')).toMatchObject({ status: 'IN_PROGRESS', lease_owner: token });
  });

  it('still reports in-flight when another attempt holds the lease', async () => {
    const { store } = storeLosingOneAnswer('PutItemCommand');
    await store.claim(entry('k1'), clock.nowMs() + 60_000);

    const second = await store.claim(entry('k1'), clock.nowMs() + 60_000);

    expect(second.kind).toBe('in-flight');
  });

  it('completes without a lost lease when the retry of its completion finds the row already completed', async () => {
    const { store, requests } = storeLosingOneAnswer('UpdateItemCommand');
    const claim = await store.claim(entry('k1'), clock.nowMs() + 60_000);
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    requests.armed = true;

    const completed = await store.complete(claim.lease);

    expect(requests.sent).toBe(2);
    expect(completed).toBe('completed');
    expect(await row('k1')).toMatchObject({ status: 'COMPLETED', completed_by: claim.lease.token });
  });

  it('reports a lost lease when another attempt completed the row it took over', async () => {
    const { store } = storeLosingOneAnswer('UpdateItemCommand');
    const stale = await store.claim(entry('k1'), clock.nowMs() + 1_000);
    clock.advance(5_000);
    const fresh = await store.claim(entry('k1'), clock.nowMs() + 60_000);
    if (stale.kind !== 'claimed' || fresh.kind !== 'claimed') throw new Error('both claims must succeed');
    await store.complete(fresh.lease);

    expect(await store.complete(stale.lease)).toBe('lease-lost');
    expect(await row('k1')).toMatchObject({ completed_by: fresh.lease.token });
  });

  it('releases without a lost lease when the retry of its release finds the row already gone', async () => {
    const { store, requests } = storeLosingOneAnswer('DeleteItemCommand');
    const claim = await store.claim(entry('k1'), clock.nowMs() + 60_000);
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    requests.armed = true;

    const released = await store.release(claim.lease);

    expect(requests.sent).toBe(2);
    expect(released).toBe('released');
    expect(await row('k1')).toBeUndefined();
  });

  it('reports a lost lease when a release finds another attempt holding the row', async () => {
    const { store } = storeLosingOneAnswer('DeleteItemCommand');
    const stale = await store.claim(entry('k1'), clock.nowMs() + 1_000);
    clock.advance(5_000);
    const fresh = await store.claim(entry('k1'), clock.nowMs() + 60_000);
    if (stale.kind !== 'claimed' || fresh.kind !== 'claimed') throw new Error('both claims must succeed');

    expect(await store.release(stale.lease)).toBe('lease-lost');
    expect(await row('k1')).toMatchObject({ status: 'IN_PROGRESS', lease_owner: fresh.lease.token });
  });
});
