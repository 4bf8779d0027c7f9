/**
 * Where the Lambda entries the bench bundles are (the Powertools contender's, and ours untraced) and what
 * they read, apart from the entries themselves: importing an entry would build its container.
 */
import { resolve } from 'node:path';

export const POWERTOOLS_HANDLER_ENTRY = resolve(import.meta.dirname, 'powertools-handler.ts');

/** The same with Powertools Logger and Metrics: the logs and metrics ours writes (powertools-telemetry-handler.ts). */
export const POWERTOOLS_TELEMETRY_HANDLER_ENTRY = resolve(
  import.meta.dirname,
  'powertools-telemetry-handler.ts',
);

/** The sample order consumer without tracing (untraced-order-consumer.ts): ours, like for like. */
export const UNTRACED_ORDER_CONSUMER_ENTRY = resolve(import.meta.dirname, 'untraced-order-consumer.ts');

/** The variable naming Powertools' own table (keyed by `id`), beside APP_TABLE_NAME. */
export const POWERTOOLS_TABLE_VARIABLE = 'IDEMPOTENCY_TABLE_NAME';
