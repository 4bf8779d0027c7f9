/**
 * The sample order consumer without its `tracing` option: the consumer the bench weighs and cold-starts
 * against Powertools' (which traces nothing), like for like. The sample's own bundle, traced, is weighed
 * beside it in the tracing section (bench/tracing/). Only the bench bundles it.
 */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';

const appTableName = process.env.APP_TABLE_NAME?.trim();
if (!appTableName) throw new ConfigError(['APP_TABLE_NAME is required']);

export const handler = createInboxConsumer(orderConsumer(appTableName));
