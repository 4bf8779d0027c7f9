/**
 * Lambda entry of the sample notification consumer (side-effect mode): its inbox is Redis or Valkey, reached
 * through the REDIS_* settings (lambdas/redis/redis-settings.ts); the notifications go to NOTIFICATION_URL.
 */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { redisInbox } from '../../lambdas/redis/index.js';
import { NOTIFICATION_URL_SETTING, orderNotificationConsumer } from './order-notification.js';

const notificationUrl = process.env[NOTIFICATION_URL_SETTING]?.trim();
if (!notificationUrl) throw new ConfigError([`${NOTIFICATION_URL_SETTING} is required`]);

export const handler = createInboxConsumer({
  ...orderNotificationConsumer(notificationUrl),
  store: redisInbox(),
});
