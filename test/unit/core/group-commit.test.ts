/**
 * Group commit in the processor (lambdas/core/group-commit.ts), on the memory store (which the contract
 * suite holds to DynamoDB's answers): which records go together, where groups are cut, and that grouping
 * changes no outcome.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BatchProcessorOptions, processBatch } from '../../../lambdas/core/batch-processor.js';
import { toBatchResponse } from '../../../lambdas/core/batch-response.js';
import type { Clock } from '../../../lambdas/core/clock.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect, EffectWrite } from '../../../lambdas/core/effect.js';
import { EffectRejectedError, InboxStoreError } from '../../../lambdas/core/errors.js';
import type { CommitGroupOptions, CommitMember, CommitResult } from '../../../lambdas/core/inbox-store.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';

const APP = 'app';

/** The memory store, recording each group it is asked to commit (by dedup key). */
class GroupRecordingStore extends MemoryInboxStore {
  readonly groups: string[][] = [];
  failGroups = false;
  constructor(clock: Clock) {
    super(clock);
  }
  override async commitGroup(
    members: readonly CommitMember[],
    _options?: CommitGroupOptions,
  ): Promise<CommitResult[]> {
    this.groups.push(members.map((member) => member.entry.dedupKey));
    if (this.failGroups) {
      throw new InboxStoreError('DynamoDB commit failed: ThrottlingException', { failureClass: 'transient' });
    }
    return super.commitGroup(members);
  }
}

/** An order: its own order item, and an update of its account (the item records of one account share). */
const orderEffect: Effect = ({ record }) => {
  const json = record.json;
  if (!json.ok) throw new EffectRejectedError('invalid-event', 'not JSON');
  const value = (json.ok ? json.value : {}) as { account?: string; writes?: number; closed?: boolean };
  const writes: EffectWrite[] = [
    { Put: { TableName: APP, Item: { pk: `order#${record.partition}-${record.offset}` } } },
    {
      Update: {
        TableName: APP,
        Key: { pk: `account#${value.account}` },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ];
  for (let i = 0; i < (value.writes ?? 0); i++) {
    writes.push({ Put: { TableName: APP, Item: { pk: `extra#${record.offset}#${i}` } } });
  }
  if (value.closed) {
    // A business rule: the account must exist as closed-account# (it never does).
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

function setup(groupSize: number, overrides: Partial<BatchProcessorOptions> = {}) {
  const clock = new ManualClock();
  const store = new GroupRecordingStore(clock);
  const options = processorOptions(store, clock, {
    effect: orderEffect,
    transactGroupMaxRecords: groupSize,
    ...overrides,
  });
  const run = (specs: RecordSpec[]) => processBatch(decodeEvent(kafkaEvent(specs)), options);
  return { store, run };
}

const order = (
  offset: number,
  account: string,
  extra: { id?: string; partition?: number; amount?: number; writes?: number; closed?: boolean } = {},
): RecordSpec => ({
  offset,
  partition: extra.partition ?? 0,
  headers: { event_id: extra.id ?? `e${offset}` },
  value: {
    account,
    amount: extra.amount ?? 1,
    ...(extra.writes ? { writes: extra.writes } : {}),
    ...(extra.closed ? { closed: true } : {}),
  },
});

const statuses = (outcomes: readonly RecordOutcome[]) => outcomes.map((o) => [o.offset, o.status, o.reason]);

describe('group commit', () => {
  it('commits the records of a partition that touch distinct items in one group', async () => {
    const { store, run } = setup(25);

    const outcomes = await run([order(1, 'a'), order(2, 'b'), order(3, 'c'), order(4, 'd')]);

    expect(store.groups).toEqual([['e1', 'e2', 'e3', 'e4']]);
    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    expect(store.appItem(APP, { pk: 'account#c' })).toBeDefined();
  });

  it('cuts the group before a record that touches an item already in it', async () => {
    const { store, run } = setup(25);

    await run([order(1, 'a'), order(2, 'b'), order(3, 'a'), order(4, 'c')]);

    expect(store.groups).toEqual([
      ['e1', 'e2'],
      ['e3', 'e4'],
    ]);
  });

  it('cuts at TRANSACT_GROUP_MAX_RECORDS, and at 100 actions in one transaction', async () => {
    const bySize = setup(2);
    await bySize.run([order(1, 'a'), order(2, 'b'), order(3, 'c')]);
    expect(bySize.store.groups).toEqual([['e1', 'e2'], ['e3']]);

    // 1 inbox row + 2 + 40 writes = 43 actions each: two fit in 100, three do not.
    const byActions = setup(25);
    await byActions.run([
      order(1, 'a', { writes: 40 }),
      order(2, 'b', { writes: 40 }),
      order(3, 'c', { writes: 40 }),
    ]);
    expect(byActions.store.groups).toEqual([['e1', 'e2'], ['e3']]);
  });

  it('commits records one by one when TRANSACT_GROUP_MAX_RECORDS is 1', async () => {
    const { store, run } = setup(1);

    await run([order(1, 'a'), order(2, 'b')]);

    expect(store.groups).toEqual([['e1'], ['e2']]);
  });

  it('settles a duplicate, a conflict and a business rejection in the middle of a group, and commits the rest', async () => {
    const { store, run } = setup(25);
    await run([order(1, 'x', { id: 'dup', amount: 5 }), order(2, 'y', { id: 'taken', amount: 5 })]);

    const outcomes = await run([
      order(10, 'a'),
      order(11, 'x', { id: 'dup', amount: 5 }),
      order(12, 'y', { id: 'taken', amount: 6 }),
      order(13, 'b', { closed: true }),
      order(14, 'c'),
    ]);

    expect(store.groups.at(-1)).toEqual(['e10', 'dup', 'taken', 'e13', 'e14']);
    expect(statuses(outcomes)).toEqual([
      [10, 'processed', undefined],
      [11, 'duplicate', 'completed'],
      [12, 'quarantined', 'payload-conflict'],
      [13, 'quarantined', 'business-rule-rejected'],
      [14, 'processed', undefined],
    ]);
    expect(store.appItem(APP, { pk: 'account#b' })).toBeUndefined();
    expect(store.appItem(APP, { pk: 'account#c' })).toBeDefined();
  });

  it("reports a failed group's records and every record after them, and commits nothing more", async () => {
    const { store, run } = setup(25);
    store.failGroups = true;

    const outcomes = await run([
      order(1, 'a'),
      order(2, 'b'),
      order(3, 'a'),
      order(4, 'c', { partition: 1 }),
    ]);

    expect(store.groups).toContainEqual(['e1', 'e2']);
    const partition0 = outcomes.filter((o) => o.partitionKey === 'orders-0');
    expect(statuses(partition0)).toEqual([
      [1, 'failed', partition0[0]?.reason],
      [2, 'failed', partition0[0]?.reason],
      [3, 'blocked', 'not-started'],
    ]);
    expect(toBatchResponse(outcomes).batchItemFailures).toContainEqual({
      itemIdentifier: { partition: 'orders-0', offset: 1 },
    });
  });

  it('writes a quarantine row only after the group before it has committed', async () => {
    const { store, run } = setup(25);

    await run([
      order(1, 'a'),
      order(2, 'b'),
      { offset: 3, partition: 0, headers: { event_id: 'bad' }, value: '{ not json' },
      order(4, 'c'),
    ]);

    expect(store.groups).toEqual([['e1', 'e2'], ['e4']]);
    const sequence = store.calls.map((call) => `${call.operation}:${call.key}`);
    expect(sequence.indexOf('quarantine:orders-0@3')).toBeGreaterThan(sequence.indexOf('commit:e2'));
    expect(sequence.indexOf('quarantine:orders-0@3')).toBeLessThan(sequence.indexOf('commit:e4'));
  });

  it('resolves a copy of a key in the open group after the group commits: a duplicate, no second write', async () => {
    const { store, run } = setup(25);

    const outcomes = await run([order(1, 'a', { id: 'same' }), order(2, 'b'), order(3, 'a', { id: 'same' })]);

    expect(store.groups).toEqual([['same', 'e2']]);
    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'processed', undefined],
      [3, 'duplicate', 'in-batch'],
    ]);
  });

  it('applies nothing after a record its group leaves in flight (another attempt holds its lease)', async () => {
    const grouped = setup(25);
    const oneByOne = setup(1);
    for (const { store } of [grouped, oneByOne]) {
      await store.claim(
        { dedupKey: 'held', payloadHash: 'x', source: 'elsewhere@1' },
        Date.now() + 3_600_000,
      );
    }
    const batch = [order(1, 'a'), order(2, 'b', { id: 'held' }), order(3, 'c'), order(4, 'd')];

    const outcomes = await grouped.run(batch);

    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'in-flight', 'live-lease'],
      [3, 'blocked', 'not-started'],
      [4, 'blocked', 'not-started'],
    ]);
    expect(grouped.store.appItem(APP, { pk: 'account#c' })).toBeUndefined();
    expect(statuses(await oneByOne.run(batch))).toEqual(statuses(outcomes));
  });

  it('commits writes that hold exact numbers (bigint), grouped', async () => {
    const { store, run } = setup(25, {
      effect: ({ record }) => ({
        kind: 'transact',
        writes: [
          {
            Put: { TableName: APP, Item: { pk: `big#${record.offset}`, cents: 12_345_678_901_234_567_890n } },
          },
        ],
      }),
    });

    const outcomes = await run([order(1, 'a'), order(2, 'b')]);

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(store.groups).toEqual([['e1', 'e2']]);
  });

  it('cuts the group before a Put and an Update of one item that has no sort key', async () => {
    const { store, run } = setup(25, {
      effect: ({ record }) =>
        record.offset === 1
          ? { kind: 'transact', writes: [{ Put: { TableName: APP, Item: { pk: 'shared', n: 1 } } }] }
          : {
              kind: 'transact',
              writes: [
                {
                  Update: {
                    TableName: APP,
                    Key: { pk: 'shared' },
                    UpdateExpression: 'SET n = :two',
                    ExpressionAttributeValues: { ':two': 2 },
                  },
                },
              ],
            },
    });

    await run([order(1, 'a'), order(2, 'b')]);

    expect(store.groups).toEqual([['e1'], ['e2']]);
  });

  it('defers the records after a commit that ran into the deadline margin', async () => {
    let remaining = 10_000;
    const { store, run } = setup(25, {
      remainingTimeMs: () => remaining,
      deadlineMarginMs: 5_000,
      partitionConcurrency: 1,
    });
    const slow = store.commitGroup.bind(store);
    store.commitGroup = async (members) => {
      remaining -= 3_000;
      return slow(members);
    };

    const outcomes = await run([order(1, 'a'), order(2, 'a'), order(3, 'a'), order(4, 'b')]);

    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'processed', undefined],
      [3, 'deferred', 'deadline'],
      [4, 'deferred', 'not-started'],
    ]);
  });

  it('lets the store go on with a group only while the deadline allows, and defers what it did not send for it', async () => {
    let remaining = 10_000;
    const { store, run } = setup(25, {
      remainingTimeMs: () => remaining,
      deadlineMarginMs: 5_000,
      partitionConcurrency: 1,
    });
    const answers: boolean[] = [];
    // As DynamoDB's store does when its first request must be followed by more (a resend, one by one).
    store.commitGroup = async (members, options) => {
      answers.push(options?.mayContinue?.() ?? true);
      remaining -= 6_000;
      answers.push(options?.mayContinue?.() ?? true);
      const [first, ...rest] = members;
      const committed = first ? await MemoryInboxStore.prototype.commitGroup.call(store, [first]) : [];
      return [...committed, ...rest.map(() => ({ kind: 'not-sent', reason: 'deadline' }) as const)];
    };

    const outcomes = await run([order(1, 'a'), order(2, 'b'), order(3, 'c')]);

    expect(answers).toEqual([true, false]);
    expect(statuses(outcomes)).toEqual([
      [1, 'processed', undefined],
      [2, 'deferred', 'deadline'],
      [3, 'deferred', 'deadline'],
    ]);
  });

  it('gives every record the outcome it gets without grouping, and leaves the same items (random batches)', async () => {
    const spec = fc.array(
      fc.record({
        partition: fc.nat(2),
        account: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        id: fc.nat(12),
        amount: fc.constantFrom(1, 2),
        kind: fc.constantFrom('order', 'order', 'order', 'closed', 'not-json', 'no-id'),
      }),
      { minLength: 1, maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(spec, fc.integer({ min: 2, max: 8 }), async (records, groupSize) => {
        const offsets = [100, 100, 100];
        const specs: RecordSpec[] = records.map((r) => {
          const offset = (offsets[r.partition] as number) + 0;
          offsets[r.partition] = offset + 1;
          // Ids are per partition: which copy of an id shared across partitions is first is a race.
          const id = `p${r.partition}e${r.id}`;
          if (r.kind === 'not-json')
            return { offset, partition: r.partition, headers: { event_id: id }, value: '{' };
          if (r.kind === 'no-id') return { offset, partition: r.partition, value: { account: r.account } };
          return order(offset, r.account, {
            id,
            partition: r.partition,
            amount: r.amount,
            closed: r.kind === 'closed',
          });
        });
        const grouped = setup(groupSize);
        const ungrouped = setup(1);
        const a = await grouped.run(specs);
        const b = await ungrouped.run(specs);
        const view = (outcomes: RecordOutcome[]) =>
          outcomes.map((o) => [o.coordinates, o.status, o.reason, o.dedupKey]);
        expect(view(a)).toEqual(view(b));
        expect([...grouped.store.appItems.keys()].sort()).toEqual(
          [...ungrouped.store.appItems.keys()].sort(),
        );
      }),
      { numRuns: 150 },
    );
  });
});
