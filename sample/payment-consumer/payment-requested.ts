/**
 * The pipeline's second consumer: a PaymentRequested (emitted by the order consumer through the outbox)
 * captures the amount on the account's ledger item, in the transaction of its inbox row. The ledger also
 * lists the ids it applied, in order, so the pipeline demo can check that each payment was applied once
 * and one account's payments in the order their orders committed.
 */
import * as z from 'zod/mini';
import type { EffectPlan, InboxConsumerOptions, InboxEffectInput } from '../../lambdas/core/index.js';
import { PAYMENT_REQUESTED } from '../order-consumer/order-placed.js';

const text = z.string().check(z.minLength(1), z.maxLength(1_000));

export const PaymentRequested = z.object({
  type: z.literal(PAYMENT_REQUESTED),
  order_id: text,
  account_id: text,
  amount: z.int().check(z.positive()),
});
export type PaymentRequested = z.infer<typeof PaymentRequested>;

/** The ledger item of an account. */
export function ledgerKey(accountId: string): string {
  return `ledger#${accountId}`;
}

export function paymentConsumer(ledgerTableName: string) {
  return {
    schema: PaymentRequested,
    effect: ({ event, dedupKey }: InboxEffectInput<PaymentRequested>): EffectPlan => ({
      kind: 'transact',
      writes: [
        {
          Update: {
            TableName: ledgerTableName,
            Key: { pk: ledgerKey(event.account_id) },
            UpdateExpression:
              'SET #applied = list_append(if_not_exists(#applied, :none), :id) ADD #captured :amount',
            ExpressionAttributeNames: { '#applied': 'applied', '#captured': 'captured' },
            ExpressionAttributeValues: { ':none': [], ':id': [dedupKey], ':amount': event.amount },
          },
        },
      ],
    }),
  } satisfies InboxConsumerOptions<typeof PaymentRequested>;
}
