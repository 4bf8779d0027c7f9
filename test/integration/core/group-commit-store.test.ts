/**
 * What DynamoDbInboxStore.commitGroup sends, request by request, counted at the SDK boundary
 * (test/support/sdk-faults.ts), and how it answers faults DynamoDB Local cannot be made to produce. The
 * answers themselves (each member as `commit` alone) are the contract suite's (test/support/inbox-store-contract.ts).
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbInboxStore } from '../../../lambdas/core/dynamodb-inbox-store.js';
import type { EffectWrite } from '../../../lambdas/core/effect.js';
import { InboxStoreError } from '../../../lambdas/core/errors.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import type { CommitMember } from '../../../lambdas/core/inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { dynamoDbStore, entry } from '../../support/inbox-store.js';
import { CONSUMER } from '../../support/order-consumer.js';
import {
  type FaultRule,
  faultyClient,
  type SdkCall,
  throttlingError,
  timeoutError,
  transactionCanceledError,
} from '../../support/sdk-faults.js';

const TRANSACT = 'TransactWriteItemsCommand';

describe('DynamoDbInboxStore.commitGroup: its requests, on DynamoDB Local', () => {
  let tables: TestTables;
  let clock: ManualClock;
  beforeEach(async () => {
    tables = await createTestTables();
    clock = new ManualClock();
  });

  /** A store on a client that records every SDK attempt and fails those `rule` names. */
  function groupStore(rule: FaultRule = () => undefined, maxAttempts = 2) {
    const faulty = faultyClient(rule, maxAttempts);
    const store = new DynamoDbInboxStore({
      client: DynamoDBDocumentClient.from(faulty.client),
      tableName: tables.inboxTableName,
      consumer: CONSUMER,
      ttlSeconds: 604_800,
      clock,
    });
    return { store, client: faulty.client, attempts: faulty.attempts };
  }

  /** Adds 1 to an app item's `n`: applied twice, it shows. */
  const bump = (pk: string): EffectWrite => ({
    Update: {
      TableName: tables.appTableName,
      Key: { pk },
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': 1 },
    },
  });
  const member = (key: string, writes: EffectWrite[]): CommitMember => ({ entry: entry(key), writes });
  const transacts = (attempts: readonly SdkCall[]) =>
    attempts.filter((call) => call.commandName === TRANSACT);

  type RawAction = Record<
    string,
    { TableName?: string; Item?: { pk?: { S?: string } }; Key?: { pk?: { S?: string } } }
  >;
  /** A request's actions in order, as `Kind table pk` (the inbox rows by their dedup key). */
  function actionsOf(call: SdkCall): string[] {
    return (call.input.TransactItems as RawAction[]).map((action) => {
      const [kind, spec] = Object.entries(action)[0] ?? ['?', {}];
      const pk = spec.Item?.pk?.S ?? spec.Key?.pk?.S ?? '?';
      const rowPrefix = dedupRowKey(CONSUMER, '');
      if (spec.TableName === tables.inboxTableName && pk.startsWith(rowPrefix))
        return `${kind} inbox ${pk.slice(rowPrefix.length)}`;
      return `${kind} app ${pk}`;
    });
  }

  /** A cancellation as DynamoDB words it, one reason per action: the first action's is `code`. */
  function cancellation(call: SdkCall, code: string): Error {
    const actions = (call.input.TransactItems as unknown[]).length;
    return transactionCanceledError([
      { Code: code, Message: 'Transaction is ongoing for the item' },
      ...Array.from({ length: actions - 1 }, () => ({ Code: 'None' })),
    ]);
  }

  const row = (key: string) => tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, key));
  const counter = async (pk: string) => (await tables.get(tables.appTableName, pk))?.n;

  it('sends an all-new group as ONE TransactWriteItems: per member its inbox Put then its writes, with an idempotency token', async () => {
    const { store, attempts } = groupStore();

    const results = await store.commitGroup([
      member('k1', [bump('c1')]),
      member('k2', [bump('c2a'), bump('c2b')]),
      member('k3', []),
    ]);

    expect(results).toEqual([{ kind: 'committed' }, { kind: 'committed' }, { kind: 'committed' }]);
    expect(attempts.map((call) => call.commandName)).toEqual([TRANSACT]);
    const [request] = attempts as [SdkCall];
    expect(actionsOf(request)).toEqual([
      'Put inbox k1',
      'Update app c1',
      'Put inbox k2',
      'Update app c2a',
      'Update app c2b',
      'Put inbox k3',
    ]);
    expect(request.input.ClientRequestToken).toEqual(expect.any(String));
    expect(String(request.input.ClientRequestToken)).not.toBe('');
    for (const key of ['k1', 'k2', 'k3']) expect(await row(key)).toMatchObject({ status: 'COMPLETED' });
    for (const pk of ['c1', 'c2a', 'c2b']) expect(await counter(pk)).toBe(1);
  });

  it('sends a group with a duplicate in its middle as two requests: the cancelled one, then the blameless members again', async () => {
    await dynamoDbStore(tables, clock).commit(entry('k-dup'), []);
    const { store, attempts } = groupStore();

    const results = await store.commitGroup([
      member('k1', [bump('c1')]),
      member('k-dup', [bump('c-dup')]),
      member('k3', [bump('c3')]),
    ]);

    expect(results.map((result) => result.kind)).toEqual(['committed', 'duplicate', 'committed']);
    const requests = transacts(attempts);
    expect(attempts).toHaveLength(2);
    expect(requests).toHaveLength(2);
    expect(actionsOf(requests[0] as SdkCall)).toHaveLength(6);
    expect(actionsOf(requests[1] as SdkCall).filter((action) => action.startsWith('Put inbox'))).toEqual([
      'Put inbox k1',
      'Put inbox k3',
    ]);
    // Another request: the first one's token cannot be reused for it.
    expect(requests[1]?.input.ClientRequestToken).not.toBe(requests[0]?.input.ClientRequestToken);
    expect(await counter('c1')).toBe(1);
    expect(await counter('c3')).toBe(1);
    expect(await counter('c-dup')).toBeUndefined();
  });

  it('falls back to one commit per member when DynamoDB refuses the request (two members on one item)', async () => {
    const { store, attempts } = groupStore();

    const results = await store.commitGroup([
      member('k1', [bump('shared')]),
      member('k2', [bump('c2')]),
      member('k3', [bump('shared')]),
    ]);

    expect(results.map((result) => result.kind)).toEqual(['committed', 'committed', 'committed']);
    const requests = transacts(attempts);
    expect(requests.map((call) => actionsOf(call).length)).toEqual([6, 2, 2, 2]);
    expect(await counter('shared')).toBe(2);
    expect(await counter('c2')).toBe(1);
  });

  it('sends no request after the first once the deadline is near: the members a resend would carry are not-sent (deadline)', async () => {
    await dynamoDbStore(tables, clock).commit(entry('k-dup'), []);
    const { store, attempts } = groupStore();
    let asked = 0;

    const results = await store.commitGroup(
      [member('k1', [bump('c1')]), member('k-dup', [bump('c-dup')]), member('k3', [bump('c3')])],
      {
        mayContinue: () => {
          asked += 1;
          return false;
        },
      },
    );

    expect(results).toEqual([
      { kind: 'not-sent', reason: 'deadline' },
      expect.objectContaining({ kind: 'duplicate' }),
      { kind: 'not-sent', reason: 'deadline' },
    ]);
    expect(transacts(attempts)).toHaveLength(1);
    expect(asked).toBe(1);
    expect(await row('k1')).toBeUndefined();
    expect(await tables.scan(tables.appTableName)).toEqual([]);
  });

  it('stops committing one by one when the deadline comes near between two of them', async () => {
    const { store, attempts } = groupStore();
    let commitsAllowed = 1;

    const results = await store.commitGroup(
      [member('k1', [bump('shared')]), member('k2', [bump('c2')]), member('k3', [bump('shared')])],
      // The refused group was the first request; one commit alone may follow, then the deadline is near.
      { mayContinue: () => commitsAllowed-- > 0 },
    );

    expect(results).toEqual([
      { kind: 'committed' },
      { kind: 'not-sent', reason: 'deadline' },
      { kind: 'not-sent', reason: 'deadline' },
    ]);
    expect(transacts(attempts).map((call) => actionsOf(call).length)).toEqual([6, 2]);
    expect(await counter('shared')).toBe(1);
    expect(await counter('c2')).toBeUndefined();
    expect(await row('k2')).toBeUndefined();
  });

  it('answers every member transient, writing nothing, when DynamoDB cancels the group for a transaction conflict', async () => {
    const { store, attempts } = groupStore((call) =>
      call.commandName === TRANSACT ? cancellation(call, 'TransactionConflict') : undefined,
    );

    const results = await store.commitGroup([
      member('k1', [bump('c1')]),
      member('k2', []),
      member('k3', [bump('c3')]),
    ]);

    expect(results).toEqual([
      { kind: 'transient', message: expect.stringMatching(/^TransactionConflict/) },
      { kind: 'transient', message: expect.stringMatching(/^TransactionConflict/) },
      { kind: 'transient', message: expect.stringMatching(/^TransactionConflict/) },
    ]);
    // The store sent the group once (the SDK's own retries, if any, carry the same token).
    expect(new Set(transacts(attempts).map((call) => call.input.ClientRequestToken)).size).toBe(1);
    expect(await tables.scan(tables.inboxTableName)).toEqual([]);
    expect(await tables.scan(tables.appTableName)).toEqual([]);
  });

  it('keeps a settled member answer and answers the open ones transient when the resend meets a transaction conflict', async () => {
    await dynamoDbStore(tables, clock).commit(entry('k-dup'), []);
    let sent = 0;
    const { store } = groupStore((call) =>
      call.commandName === TRANSACT && ++sent === 2 ? cancellation(call, 'TransactionConflict') : undefined,
    );

    const results = await store.commitGroup([
      member('k1', [bump('c1')]),
      member('k-dup', [bump('c-dup')]),
      member('k3', [bump('c3')]),
    ]);

    expect(results.map((result) => result.kind)).toEqual(['transient', 'duplicate', 'transient']);
    expect(await row('k1')).toBeUndefined();
    expect(await row('k3')).toBeUndefined();
    expect(await tables.scan(tables.appTableName)).toEqual([]);
  });

  it('throws an InboxStoreError, writing nothing, when throttling outlasts the SDK retries', async () => {
    const { store, attempts } = groupStore((call) =>
      call.commandName === TRANSACT ? throttlingError() : undefined,
    );

    const group = store.commitGroup([member('k1', [bump('c1')]), member('k2', [bump('c2')])]);

    await expect(group).rejects.toBeInstanceOf(InboxStoreError);
    await expect(group).rejects.toMatchObject({ failureClass: 'transient' });
    // The SDK retried the same request (same token); the store did not send another.
    const requests = transacts(attempts);
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((call) => call.input.ClientRequestToken)).size).toBe(1);
    expect(await tables.scan(tables.inboxTableName)).toEqual([]);
    expect(await tables.scan(tables.appTableName)).toEqual([]);
  });

  it('commits each member once and answers committed, not duplicate, when the SDK retries a group whose answer was lost', async () => {
    // maxAttempts 3, as deployed: the first answer is lost after DynamoDB applied the transaction.
    const { store, client } = groupStore(() => undefined, 3);
    /** The idempotency token each attempt carried on the wire. */
    const sentTokens: unknown[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== TRANSACT) return next(args);
        const body = (args.request as { body?: unknown }).body;
        sentTokens.push(JSON.parse(String(body)).ClientRequestToken);
        const result = await next(args);
        if (sentTokens.length === 1) {
          throw timeoutError();
        }
        return result;
      },
      // Inside the retry loop, like a lost answer.
      { step: 'deserialize', name: 'loseOneAnswer', priority: 'low' },
    );

    const results = await store.commitGroup([
      member('k1', [bump('c1')]),
      member('k2', [bump('c2')]),
      member('k3', []),
    ]);

    expect(results).toEqual([{ kind: 'committed' }, { kind: 'committed' }, { kind: 'committed' }]);
    expect(sentTokens).toHaveLength(2);
    expect(sentTokens[0]).toEqual(expect.any(String));
    expect(sentTokens[1]).toBe(sentTokens[0]);
    expect(await counter('c1')).toBe(1);
    expect(await counter('c2')).toBe(1);
    for (const key of ['k1', 'k2', 'k3']) expect(await row(key)).toMatchObject({ status: 'COMPLETED' });
  });
});
