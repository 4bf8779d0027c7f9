import { describe, expect, it } from 'vitest';
import { type ItemSizes, priceRecorded } from '../../../../bench/cost/billed-capacity.js';
import type { Item, Recorded, RecordedAccess } from '../../../../bench/cost/request-recorder.js';

const KB = 1024;

/** An item of exactly `bytes`: `pk` (2 + its value) and `b` (1 + the padding). */
function itemOf(pk: string, bytes: number): Item {
  return { pk: { S: pk }, b: { S: 'x'.repeat(bytes - 2 - pk.length - 1) } };
}

function sizes(entries: Record<string, number>): ItemSizes {
  return new Map([['t', new Map(Object.entries(entries))]]);
}

function access(
  kind: RecordedAccess['kind'],
  pk: string,
  more: Partial<RecordedAccess> = {},
): RecordedAccess {
  return { kind, pk, table: 't', transactional: false, refused: false, ...more };
}

function recorded(parts: Partial<Recorded>): Recorded {
  return { writes: [], reads: [], queries: [], ...parts };
}

const none = sizes({});

describe('write units as DynamoDB bills them', () => {
  it('bills a transaction 2 units per started KB of each item: the inbox row and two updates of a new record', () => {
    const writes = [
      access('Put', 'row', { transactional: true, item: itemOf('row', 500) }),
      access('Update', 'account', { transactional: true }),
      access('Update', 'order', { transactional: true }),
    ];
    const after = sizes({ row: 500, account: 300, order: 1500 });
    // 2 × 1 KB + 2 × 1 KB + 2 × 2 KB
    expect(priceRecorded(recorded({ writes }), { before: none, after }).writeUnits).toBe(8);
  });

  it('bills a ConditionCheck in a transaction like a write of the item checked', () => {
    const writes = [access('ConditionCheck', 'row', { transactional: true })];
    expect(
      priceRecorded(recorded({ writes }), { before: sizes({ row: 100 }), after: sizes({ row: 100 }) }),
    ).toEqual({
      writeUnits: 2,
      readUnits: 0,
    });
  });

  it('bills an UpdateItem on the larger of the item before and after', () => {
    const writes = [access('Update', 'account')];
    expect(
      priceRecorded(recorded({ writes }), {
        before: sizes({ account: 900 }),
        after: sizes({ account: 1100 }),
      }).writeUnits,
    ).toBe(2);
  });

  it('bills a PutItem on the larger of its item and the one it replaced', () => {
    const writes = [access('Put', 'row', { item: itemOf('row', 100) })];
    expect(
      priceRecorded(recorded({ writes }), { before: sizes({ row: 3000 }), after: sizes({ row: 100 }) })
        .writeUnits,
    ).toBe(3);
  });

  it('bills a DeleteItem on the item deleted, and one put and deleted in the same delivery on its Put', () => {
    const writes = [
      access('Delete', 'old'),
      access('Put', 'passing', { item: itemOf('passing', 2 * KB + 1) }),
      access('Delete', 'passing'),
    ];
    // 2 (1.6 KB) + 3 (the Put) + 3 (the Delete of that item)
    expect(
      priceRecorded(recorded({ writes }), { before: sizes({ old: 1.6 * KB }), after: none }).writeUnits,
    ).toBe(8);
  });

  it('bills a refused conditional write on the item that stood, and 1 unit where none did', () => {
    const writes = [
      access('Put', 'claimed', { refused: true, item: itemOf('claimed', 100) }),
      access('Update', 'missing', { refused: true }),
    ];
    const standing = sizes({ claimed: 2500 });
    expect(priceRecorded(recorded({ writes }), { before: standing, after: standing }).writeUnits).toBe(3 + 1);
  });
});

describe('read units as DynamoDB bills them', () => {
  it('bills GetItem per started 4 KB, half eventually consistent, 2 in a transaction, the minimum for a missing item', () => {
    const reads = [
      access('Get', 'big', { read: 'strong' }),
      access('Get', 'big', { read: 'eventual' }),
      access('Get', 'missing', { read: 'eventual' }),
      access('Get', 'small', { read: 'transactional', transactional: true }),
    ];
    const tables = sizes({ big: 5000, small: 100 });
    // 2 + 1 + 0.5 + 2
    expect(priceRecorded(recorded({ reads }), { before: tables, after: tables }).readUnits).toBe(5.5);
  });

  it('bills a Query on its items together, rounded once', () => {
    // 10 items of 4,100 bytes: 41,000 bytes, 11 started 4 KB, eventually consistent
    const queries = [{ table: 't', read: 'eventual' as const, bytes: 41_000 }];
    expect(priceRecorded(recorded({ queries }), { before: none, after: none }).readUnits).toBe(5.5);
  });
});
