/**
 * Lambda entry of the harness's order function, for runs whose values are not JSON: the sample's order
 * consumer (its schema, skip and effect from sample/order-consumer/order-placed.ts, one definition the demo
 * and the soak check alike) with a value format. `npm start -- --format avro` bundles it (with the esbuild
 * settings CDK deploys, lib/bundling.ts) in place of the sample's entry, whose bundle stays JSON-only. The
 * value format comes from the environment, as a team's function would read its own settings.
 *
 * - `APP_TABLE_NAME` (required): the business table.
 * - `VALUE_FORMAT`: `json` (default) or `avro` (Confluent-framed, local/orders/order-avro.ts).
 */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import { ORDER_VALUE_FORMATS, type OrderValueFormat, orderAvroValues } from './order-avro.js';

const appTableName = process.env.APP_TABLE_NAME?.trim();
const valueFormat = process.env.VALUE_FORMAT?.trim() || 'json';
const problems = [
  ...(appTableName ? [] : ['APP_TABLE_NAME is required']),
  ...(ORDER_VALUE_FORMATS.includes(valueFormat as OrderValueFormat)
    ? []
    : [`VALUE_FORMAT must be one of ${ORDER_VALUE_FORMATS.join(', ')}`]),
];
if (problems.length > 0) throw new ConfigError(problems);

export const handler = createInboxConsumer({
  ...orderConsumer(appTableName ?? ''),
  ...(valueFormat === 'avro' ? { valueFormat: orderAvroValues() } : {}),
});
