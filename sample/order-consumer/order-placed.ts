/**
 * The sample service: an OrderPlaced debits the account and adds to the order total, in the same
 * transaction as the inbox row. The updates are relative on purpose: only the inbox makes them exactly-once.
 *
 * The one definition of the order effect: the Lambda entry (handler.ts) builds on these parts, and so do
 * the harness (local/orders/orders-function.ts with an Avro value format, the soak, the poison harness),
 * the bench and the tests, without importing the entry; so the demo checks the deployed sample against the
 * expectations the soak checks. Nothing here reads the environment or picks a value format.
 */
// zod's tree-shakable build: the full one adds 450 KB (every locale) to a 280 KB bundle.
import * as z from 'zod/mini';
import {
  type DecodedRecord,
  type EffectPlan,
  EffectRejectedError,
  type InboxConsumerOptions,
  type InboxEffectInput,
} from '../../lambdas/core/index.js';

export const ORDER_PLACED = 'OrderPlaced';

/** Ids become DynamoDB keys: well-formed (a lone surrogate would be stored as U+FFFD) and far under 2,048 bytes. */
const MAX_ID_BYTES = 1_000;
const ID = `must be a well-formed string of 1 to ${MAX_ID_BYTES} bytes`;
const id = z
  .string({ error: ID })
  .check(
    z.refine((s) => s !== '' && s.isWellFormed() && Buffer.byteLength(s) <= MAX_ID_BYTES, { error: ID }),
  );
const CENTS = 'must be a positive whole number of cents';
const cents = z.int({ error: CENTS }).check(z.positive({ error: CENTS }));

export const OrderPlaced = z.object({
  event_id: id,
  type: z.literal(ORDER_PLACED, { error: `must be "${ORDER_PLACED}"` }),
  order_id: id,
  account_id: id,
  amount: cents,
});
export type OrderPlaced = z.infer<typeof OrderPlaced>;

/** Records of another type are not this consumer's business: acked with no write (a fixed reason: it is logged). */
export function skipOtherEventTypes(record: DecodedRecord): string | undefined {
  const value = record.parsed.ok ? record.parsed.value : undefined;
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type !== ORDER_PLACED ? 'other-event-type' : undefined;
}

/**
 * The order effect. With `paymentsTopic` it also asks for the payment (the pipeline's first consumer,
 * emitting-handler.ts): a PaymentRequested for the account, appended to the outbox in the same
 * transaction, so it is published exactly when the debit committed (docs/outbox.md).
 */
export function orderPlacedEffect(appTableName: string, emitting: { readonly paymentsTopic?: string } = {}) {
  return ({ event, dedupKey }: InboxEffectInput<OrderPlaced>): EffectPlan => {
    if (event.event_id !== dedupKey) {
      throw new EffectRejectedError(
        'invalid-event',
        'event_id in the value differs from the event_id header',
      );
    }
    const writes = orderPlacedWrites(appTableName, event);
    if (emitting.paymentsTopic === undefined) return { kind: 'transact', writes };
    return { kind: 'transact', writes, emit: [paymentRequested(emitting.paymentsTopic, event)] };
  };
}

export const PAYMENT_REQUESTED = 'PaymentRequested';

/** The event the order asks the payment service for, keyed by account: one account's payments in order. */
export function paymentRequested(topic: string, order: OrderPlaced) {
  return {
    topic,
    key: order.account_id,
    value: JSON.stringify({
      type: PAYMENT_REQUESTED,
      order_id: order.order_id,
      account_id: order.account_id,
      amount: order.amount,
    }),
    headers: { type: PAYMENT_REQUESTED },
  };
}

/** The sample consumer, for createInboxConsumer: its schema, what it skips, its effect. */
export function orderConsumer(appTableName: string, emitting: { readonly paymentsTopic?: string } = {}) {
  return {
    schema: OrderPlaced,
    skip: skipOtherEventTypes,
    effect: orderPlacedEffect(appTableName, emitting),
  } satisfies InboxConsumerOptions<typeof OrderPlaced>;
}

export function orderPlacedWrites(appTableName: string, order: OrderPlaced) {
  return [
    {
      Update: {
        TableName: appTableName,
        Key: { pk: `account#${order.account_id}` },
        UpdateExpression: 'SET #balance = if_not_exists(#balance, :zero) - :amount',
        ExpressionAttributeNames: { '#balance': 'balance' },
        ExpressionAttributeValues: { ':zero': 0, ':amount': order.amount },
      },
    },
    {
      Update: {
        TableName: appTableName,
        Key: { pk: `order#${order.order_id}` },
        UpdateExpression: 'SET #total = if_not_exists(#total, :zero) + :amount, #status = :placed',
        ExpressionAttributeNames: { '#total': 'total', '#status': 'status' },
        ExpressionAttributeValues: { ':zero': 0, ':amount': order.amount, ':placed': 'PLACED' },
      },
    },
  ] as const;
}
