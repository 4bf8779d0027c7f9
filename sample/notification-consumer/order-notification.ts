/**
 * The sample side-effect consumer: each OrderPlaced is announced to a notification service by an HTTP
 * POST. The effect lives outside any database, so nothing can commit with it: the inbox (Redis, in
 * handler.ts) claims the event, the call runs under that claim, and the row completes after it. A crash
 * between the call and the completion runs the call again (docs/fault-tolerance.md), so the event's
 * dedup key travels as the `Idempotency-Key` header and the service absorbs the repeat.
 *
 * Nothing here reads the environment: the entry (handler.ts) does.
 */
import {
  EffectRejectedError,
  type InboxEffectInput,
  type SideEffectConsumerOptions,
} from '../../lambdas/core/index.js';
import { OrderPlaced, skipOtherEventTypes } from '../order-consumer/order-placed.js';

/** The setting that names where notifications go. */
export const NOTIFICATION_URL_SETTING = 'NOTIFICATION_URL';

/** One notification's longest wait: past it the attempt fails, its claim is released and the record retried. */
const CALL_TIMEOUT_MS = 5_000;

/**
 * Client errors that a later attempt may get past: a timeout, the same key in flight at the service
 * (the Idempotency-Key draft's 409), a rate limit. Any other 4xx refuses this notification for good.
 */
const RETRYABLE_CLIENT_ERRORS = new Set([408, 409, 429]);

/** The consumer, for `createInboxConsumer({ ...orderNotificationConsumer(url), store })`. */
export function orderNotificationConsumer(notificationUrl: string) {
  return {
    schema: OrderPlaced,
    skip: skipOtherEventTypes,
    effect: ({ event, dedupKey }: InboxEffectInput<OrderPlaced>) => ({
      kind: 'call',
      run: () => notify(notificationUrl, dedupKey, event),
    }),
  } satisfies Omit<SideEffectConsumerOptions<typeof OrderPlaced>, 'store'>;
}

async function notify(url: string, idempotencyKey: string, order: OrderPlaced): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ order_id: order.order_id, account_id: order.account_id, amount: order.amount }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  // Read to the end, so the connection goes back to the pool for the next call.
  await response.arrayBuffer();
  if (response.ok) return;
  const answer = `the notification service answered ${response.status}`;
  if (response.status < 500 && !RETRYABLE_CLIENT_ERRORS.has(response.status)) {
    // Quarantined: an operator reads why and replays it once the service takes it.
    throw new EffectRejectedError('notification-refused', answer);
  }
  throw new Error(`${answer}: the record is retried`);
}
