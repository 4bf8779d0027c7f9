/**
 * Lambda entry of the pipeline's first consumer (`npm start -- --pipeline`): the sample order consumer that
 * also emits a PaymentRequested per order through the outbox (OUTBOX_TABLE_NAME, set by the KafkaConsumer's
 * `outbox` prop).
 */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { orderConsumer } from './order-placed.js';

const appTableName = process.env.APP_TABLE_NAME?.trim();
const paymentsTopic = process.env.PAYMENTS_TOPIC?.trim();
const missing = [
  ...(appTableName ? [] : ['APP_TABLE_NAME is required']),
  ...(paymentsTopic ? [] : ['PAYMENTS_TOPIC is required']),
];
if (!appTableName || !paymentsTopic) throw new ConfigError(missing);

export const handler = createInboxConsumer(orderConsumer(appTableName, { paymentsTopic }));
