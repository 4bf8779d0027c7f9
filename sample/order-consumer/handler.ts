/** Lambda entry of the sample order consumer (transactional mode): one call to the public entry. */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { openTelemetryTracing } from '../../lambdas/opentelemetry/index.js';
import { orderConsumer } from './order-placed.js';

const appTableName = process.env.APP_TABLE_NAME?.trim();
if (!appTableName) throw new ConfigError(['APP_TABLE_NAME is required']);

// Spans go to whatever SDK the function registers (the stack adds the ADOT layer); with none, nothing records.
export const handler = createInboxConsumer({
  ...orderConsumer(appTableName),
  tracing: openTelemetryTracing(),
});
