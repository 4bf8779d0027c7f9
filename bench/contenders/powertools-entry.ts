/**
 * Where the Powertools contender's Lambda entry is and what it reads, apart from the entry itself: importing
 * the entry would build its container.
 */
import { resolve } from 'node:path';

export const POWERTOOLS_HANDLER_ENTRY = resolve(import.meta.dirname, 'powertools-handler.ts');

/** The same with Powertools Logger and Metrics: the logs and metrics ours writes (powertools-telemetry-handler.ts). */
export const POWERTOOLS_TELEMETRY_HANDLER_ENTRY = resolve(
  import.meta.dirname,
  'powertools-telemetry-handler.ts',
);

/** The variable naming Powertools' own table (keyed by `id`), beside APP_TABLE_NAME. */
export const POWERTOOLS_TABLE_VARIABLE = 'IDEMPOTENCY_TABLE_NAME';
