/**
 * The sample's OrderPlaced as an `idempotent` plan (docs/design.md#idempotent-plans), for the bench. The
 * sample debits the account and adds to the order total: both accumulate, so neither has an idempotent
 * shape. The nearest honest equivalent records the order once, as an item keyed by its order id and
 * guarded by `attribute_not_exists(pk)`, carrying its account and amount: an account's balance is then the
 * sum of its orders, computed where it is read (readBalances' `orders` source), not a counter kept here.
 */
import type { EffectPlan, EffectWrite } from '../../lambdas/core/effect.js';
import type { InboxEffectInput } from '../../lambdas/core/index.js';
import type { OrderPlaced } from '../../sample/order-consumer/order-placed.js';

/** The placed order as one guarded Put: a redelivery finds it and is acked as a duplicate. */
export function placedOrderWrite(appTableName: string, order: OrderPlaced): EffectWrite {
  return {
    Put: {
      TableName: appTableName,
      Item: {
        pk: `order#${order.order_id}`,
        account_id: order.account_id,
        amount: order.amount,
        status: 'PLACED',
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The sample's validation and rejections (its transactional effect), then the idempotent plan. */
export function idempotentOrders(
  appTableName: string,
  transactional: (input: InboxEffectInput<OrderPlaced>) => EffectPlan,
) {
  return (input: InboxEffectInput<OrderPlaced>): EffectPlan => {
    const plan = transactional(input);
    if (plan.kind !== 'transact') return plan;
    return { kind: 'idempotent', writes: [placedOrderWrite(appTableName, input.event)] };
  };
}
