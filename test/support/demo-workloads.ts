/**
 * The demo run the e2e tests put through every kind of fault, on either store: a small workload at high
 * fault rates (test/e2e/demo.test.ts on DynamoDB Local, test/e2e/demo-postgres.test.ts on PGlite).
 */
import type { DemoOptions } from '../../local/demo/demo-options.js';

export const EVERY_FAULT_DEMO = {
  // The broker path has its own e2e tests (test/e2e/kafka); these run the in-memory log.
  source: 'memory',
  events: 200,
  accounts: 20,
  duplicateRate: 0.2,
  poisonRate: 0.05,
  crashRate: 0.25,
  duplicateDeliveryRate: 0.15,
  overlapRate: 0.15,
  batchSize: 20,
  batchingWindowMs: 50,
  // Each poll loop's faults follow from the seed: this one meets every kind.
  seed: 3,
} as const satisfies Partial<DemoOptions>;
