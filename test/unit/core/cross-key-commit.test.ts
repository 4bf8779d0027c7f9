/**
 * Group commit across keys (lambdas/core/cross-key-commit.ts), on the memory store (which the contract suite
 * holds to DynamoDB's answers): under ORDERING=key the ready records of several keys share a transaction,
 * never two records of one key or two records on one item, and a record the store refuses settles alone.
 */
import { describe, expect, it } from 'vitest';
import { type BatchProcessorOptions, processBatch } from '../../../lambdas/core/batch-processor.js';
import type { Clock } from '../../../lambdas/core/clock.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect, EffectWrite } from '../../../lambdas/core/effect.js';
import type { CommitGroupOptions, CommitMember, CommitResult } from '../../../lambdas/core/inbox-store.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';

const APP = 'app';

/**
 * The memory store, recording each transaction (by dedup key) and the item keys of the transactions in
 * flight at once; each answer takes a few ms, as a round trip does.
 */
class TransactionRecordingStore extends MemoryInboxStore {
  readonly transactions: string[][] = [];
  /** Item keys (app writes) that two transactions in flight at once both touched. */
  readonly overlapping: string[] = [];
  readonly #inFlight = new Set<Set<string>>();
  constructor(clock: Clock) {
    super(clock);
  }
  override async commitGroup(
    members: readonly CommitMember[],
    options?: CommitGroupOptions,
  ): Promise<CommitResult[]> {
    this.transactions.push(members.map((member) => member.entry.dedupKey));
    const items = new Set(members.flatMap((member) => member.writes.map(itemKey)));
    for (const other of this.#inFlight) {
      for (const item of items) if (other.has(item)) this.overlapping.push(item);
    }
    this.#inFlight.add(items);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3));
      return await super.commitGroup(members, options);
    } finally {
      this.#inFlight.delete(items);
    }
  }
}

function itemKey(write: EffectWrite): string {
  if ('Put' in write) return String(write.Put.Item.pk);
  const target = 'Update' in write ? write.Update : 'Delete' in write ? write.Delete : write.ConditionCheck;
  return String(target.Key.pk);
}

/**
 * An order of the account that is its Kafka key: its own order item and an update of its account, so a
 * key's records share the account item; `shared` adds an update of one counter every such record touches;
 * `closed` a condition that always fails (a business rule).
 */
const orderEffect: Effect = ({ record }) => {
  const value = (record.json.ok ? record.json.value : {}) as {
    account?: string;
    shared?: boolean;
    closed?: boolean;
  };
  const writes: EffectWrite[] = [
    { Put: { TableName: APP, Item: { pk: `order#${record.offset}` } } },
    {
      Update: {
        TableName: APP,
        Key: { pk: `account#${value.account}` },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ];
  if (value.shared) {
    writes.push({
      Update: {
        TableName: APP,
        Key: { pk: 'counter#shared' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    });
  }
  if (value.closed) {
    writes.push({
      ConditionCheck: {
        TableName: APP,
        Key: { pk: `closed#${value.account}` },
        ConditionExpression: 'attribute_exists(pk)',
      },
    });
  }
  return { kind: 'transact', writes };
};

function setup(groupMax: number, overrides: Partial<BatchProcessorOptions> = {}) {
  const clock = new ManualClock();
  const store = new TransactionRecordingStore(clock);
  const options = processorOptions(store, clock, {
    effect: orderEffect,
    transactGroupMaxRecords: groupMax,
    ordering: { by: 'key', keySource: { from: 'kafka-key' }, keyConcurrency: 16 },
    ...overrides,
  });
  const run = (specs: RecordSpec[]) => processBatch(decodeEvent(kafkaEvent(specs)), options);
  return { store, run };
}

/** A record of partition 0 whose Kafka key is its account. */
const order = (
  offset: number,
  account: string,
  extra: { id?: string; shared?: boolean; closed?: boolean } = {},
): RecordSpec => ({
  offset,
  partition: 0,
  key: account,
  headers: { event_id: extra.id ?? `e${offset}` },
  value: { account, ...(extra.shared ? { shared: true } : {}), ...(extra.closed ? { closed: true } : {}) },
});

const statuses = (outcomes: readonly RecordOutcome[]) => outcomes.map((o) => [o.offset, o.status, o.reason]);
const transactionOf = (store: TransactionRecordingStore, id: string) =>
  store.transactions.findIndex((transaction) => transaction.includes(id));

describe('group commit across keys (ORDERING=key)', () => {
  it('commits N ready records of N keys of one partition in ceil(N / TRANSACT_GROUP_MAX_RECORDS) transactions', async () => {
    const { store, run } = setup(5);
    const keys = Array.from({ length: 12 }, (_, index) => `k${index}`);

    const outcomes = await run(keys.map((key, index) => order(index + 1, key)));

    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    expect(store.transactions.map((transaction) => transaction.length)).toEqual([5, 5, 2]);
  });

  it('commits one transaction per record without grouping (TRANSACT_GROUP_MAX_RECORDS=1)', async () => {
    const { store, run } = setup(1);

    await run(['a', 'b', 'c'].map((key, index) => order(index + 1, key)));

    expect(store.transactions).toEqual([['e1'], ['e2'], ['e3']]);
  });

  it('spreads many ready records over transactions of at least 10 records each', async () => {
    const { store, run } = setup(100);

    await run(Array.from({ length: 40 }, (_, index) => order(index + 1, `k${index}`)));

    expect(store.transactions.map((transaction) => transaction.length)).toEqual([10, 10, 10, 10]);
  });

  it("never commits a key's next record in the same transaction as its previous one, nor before it", async () => {
    const { store, run } = setup(100);
    const batch = [
      order(1, 'a'),
      order(2, 'b'),
      order(3, 'a'),
      order(4, 'c'),
      order(5, 'a'),
      order(6, 'b'),
      order(7, 'd'),
    ];

    const outcomes = await run(batch);

    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    expect(transactionOf(store, 'e1')).toBeLessThan(transactionOf(store, 'e3'));
    expect(transactionOf(store, 'e3')).toBeLessThan(transactionOf(store, 'e5'));
    expect(transactionOf(store, 'e2')).toBeLessThan(transactionOf(store, 'e6'));
    // Keys do share: the heads of a, b, c and d go together.
    expect(store.transactions[0]).toEqual(['e1', 'e2', 'e4', 'e7']);
    expect(store.transactions.length).toBe(3);
  });

  it('keeps two keys that write one shared item out of one transaction, and out of flight at once', async () => {
    const { store, run } = setup(100);

    const outcomes = await run([
      order(1, 'a', { shared: true }),
      order(2, 'b', { shared: true }),
      order(3, 'c'),
      order(4, 'd', { shared: true }),
    ]);

    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    expect(store.transactions[0]).toEqual(['e1', 'e3']);
    for (const transaction of store.transactions) {
      expect(transaction.filter((id) => ['e1', 'e2', 'e4'].includes(id)).length).toBeLessThanOrEqual(1);
    }
    expect(store.overlapping).toEqual([]);
    expect(store.appItem(APP, { pk: 'counter#shared' })).toBeDefined();
  });

  it('quarantines a record its shared transaction cancels, alone, and commits the records of the other keys', async () => {
    const { store, run } = setup(100);

    const outcomes = await run([
      order(1, 'a'),
      order(2, 'b', { closed: true }),
      order(3, 'c'),
      order(4, 'b'),
    ]);

    expect(store.transactions[0]).toEqual(['e1', 'e2', 'e3']);
    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'quarantined', 'business-rule-rejected'],
      [3, 'processed', undefined],
      [4, 'processed', undefined],
    ]);
    expect(store.appItem(APP, { pk: 'order#2' })).toBeUndefined();
    for (const offset of [1, 3, 4]) expect(store.appItem(APP, { pk: `order#${offset}` })).toBeDefined();
  });

  it('commits the records before one left in flight, and leaves those after it to the redelivery', async () => {
    const { store, run } = setup(100);
    await store.claim({ dedupKey: 'held', payloadHash: 'x', source: 'elsewhere@1' }, Date.now() + 3_600_000);

    const outcomes = await run([order(1, 'a'), order(2, 'b', { id: 'held' }), order(3, 'c'), order(4, 'a')]);

    expect(store.transactions[0]).toEqual(['e1', 'held', 'e3']);
    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'in-flight', 'live-lease'],
      [3, 'blocked', 'not-started'],
      [4, 'blocked', 'not-started'],
    ]);
    expect(store.appItem(APP, { pk: 'account#a' })).toBeDefined();
    expect(store.appItem(APP, { pk: 'account#c' })).toBeUndefined();
  });

  it('runs no more side-effect calls of a partition at once than KEY_CONCURRENCY, though more keys run', async () => {
    let running = 0;
    let maxRunning = 0;
    const { run } = setup(100, {
      ordering: { by: 'key', keySource: { from: 'kafka-key' }, keyConcurrency: 2 },
      effect: () => ({
        kind: 'call',
        run: async () => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
        },
      }),
    });

    const outcomes = await run(['a', 'b', 'c', 'd', 'e', 'f'].map((key, index) => order(index + 1, key)));

    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    expect(maxRunning).toBe(2);
  });
});
