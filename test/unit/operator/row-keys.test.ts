/**
 * The operator tool's rows are keyed under the consumer's row prefix (lambdas/core/inbox-item.ts,
 * consumerRowPrefix), which the operators' IAM policy grants (`dynamodb:LeadingKeys` `<consumer>!*`,
 * docs/operate.md#permissions): built on it, not on a copy of it. The prefix is replaced here, so a key
 * spelled out by hand would not follow it.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../../lambdas/core/inbox-item.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../lambdas/core/inbox-item.js')>()),
  consumerRowPrefix: (consumer: string) => `${consumer}~ops~`,
}));

const { parkedRowKey } = await import('../../../operator/quarantine-table.js');
const { failedBatchRowKey } = await import('../../../operator/failed-batches/replay-log.js');

describe("operator rows under the consumer's row prefix", () => {
  it('a row set aside for a replay, and a failed batch replay record', () => {
    expect(parkedRowKey('orders', 'orders-0@7')).toBe('orders~ops~replaying#orders-0@7');
    expect(failedBatchRowKey('orders', 'name')).toBe('orders~ops~failed-batch#name');
  });
});
