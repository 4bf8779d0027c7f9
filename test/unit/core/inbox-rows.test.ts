/**
 * The inbox table's row kinds (lambdas/core/inbox-rows.ts): each key parses back to its kind, and every
 * operator-side row lies under the consumer's row prefix, which the operators' IAM policy grants
 * (`dynamodb:LeadingKeys` `<consumer>!*`, docs/operate.md#permissions), where no dedup row can lie.
 */
import { describe, expect, it } from 'vitest';
import {
  consumerRowPrefix,
  dedupRowKey,
  failedBatchRowKey,
  parseRowKey,
  quarantineRowKey,
  replayingRowKey,
} from '../../../lambdas/core/inbox-rows.js';

describe('the inbox table row kinds', () => {
  const keys = {
    dedup: dedupRowKey('orders', 'e-1'),
    quarantine: quarantineRowKey('orders', 'orders-0@7'),
    replaying: replayingRowKey('orders', 'orders-0@7'),
    'failed-batch': failedBatchRowKey('orders', 'batch-9'),
  };

  it('parses each key back to its kind and id', () => {
    expect(Object.values(keys).map((pk) => parseRowKey('orders', pk))).toEqual([
      { kind: 'dedup', id: 'e-1' },
      { kind: 'quarantine', id: 'orders-0@7' },
      { kind: 'replaying', id: 'orders-0@7' },
      { kind: 'failed-batch', id: 'batch-9' },
    ]);
    expect(parseRowKey('payments', keys.quarantine)).toBeUndefined();
  });

  it("keeps every operator row under the consumer's row prefix, and no dedup row there", () => {
    const { dedup, ...operatorRows } = keys;
    for (const pk of Object.values(operatorRows))
      expect(pk.startsWith(consumerRowPrefix('orders'))).toBe(true);
    // A dedup key spelled like an operator row stays a dedup row: it follows `<consumer>#`.
    const lookalike = dedupRowKey('orders', '!quarantine#orders-0@7');
    expect(lookalike.startsWith(consumerRowPrefix('orders'))).toBe(false);
    expect(parseRowKey('orders', lookalike)?.kind).toBe('dedup');
    expect(dedup.startsWith(consumerRowPrefix('orders'))).toBe(false);
  });
});
