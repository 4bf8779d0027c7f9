/**
 * The bench's inbox-idempotent contender (bench/contenders/idempotent-orders.ts): its plan passes the shape
 * rules, and a new order costs what the issue asks of the kind: at most 1 write unit per single-item record.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { placedOrderWrite } from '../../../bench/contenders/idempotent-orders.js';
import { itemSizeBytes, writeUnits } from '../../../bench/cost/capacity-units.js';
import { checkIdempotentWrites } from '../../../lambdas/core/idempotent-writes.js';

/** The longest ids and the largest amount the bench's workloads make (bench/scenarios.ts). */
const ORDER = {
  event_id: 'h-evt-4999',
  type: 'OrderPlaced',
  order_id: 'h-ord-4999',
  account_id: 'h-acct-0-499',
  amount: 10_000,
} as const;

describe('the inbox-idempotent contender', () => {
  it('plans a write the shape rules accept: a Put guarded by attribute_not_exists(pk)', () => {
    expect(checkIdempotentWrites([placedOrderWrite('bench-app', ORDER)], ORDER.event_id)).toEqual({
      ok: true,
    });
  });

  it('costs 1 write unit per new order: one standard write of an item under 1 KB', () => {
    const write = placedOrderWrite('bench-app', ORDER);
    if (!('Put' in write)) throw new Error('a Put');
    const bytes = itemSizeBytes(marshall(write.Put.Item));
    expect(bytes).toBeLessThan(1024);
    expect(writeUnits(bytes, 'standard')).toBe(1);
  });
});
