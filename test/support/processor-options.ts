/** The batch processor's options as the unit tests start from: a manual clock, a minute left, no faults. */
import type { BatchProcessorOptions } from '../../lambdas/core/batch-processor.js';
import type { Clock } from '../../lambdas/core/clock.js';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../lambdas/core/dedup-key.js';
import type { InboxStore } from '../../lambdas/core/inbox-store.js';

export function processorOptions(
  store: InboxStore,
  clock: Clock,
  overrides: Partial<BatchProcessorOptions> = {},
): BatchProcessorOptions {
  return {
    store,
    effect: () => ({ kind: 'transact', writes: [] }),
    dedupKeyPolicy: DEFAULT_DEDUP_KEY_POLICY,
    clock,
    remainingTimeMs: () => 60_000,
    deadlineMarginMs: 1_000,
    leaseMarginMs: 5_000,
    partitionConcurrency: 4,
    ...overrides,
  };
}
