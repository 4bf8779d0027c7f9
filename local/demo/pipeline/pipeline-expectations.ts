/**
 * What the pipeline must end with, worked out from the orders workload alone: per account, the payments
 * the order consumer emits, in the order it commits them. Orders are keyed by account, so one account's
 * orders sit in one partition and the order consumer commits them in offset order; each unique valid order
 * emits one PaymentRequested whose id is outboxEventId(order consumer, order event id, 0).
 */
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import type { WorkloadRecord } from '../workload.js';

export interface ExpectedPayments {
  /** Account id → the payment ids in commit order, each once. */
  readonly byAccount: ReadonlyMap<string, readonly string[]>;
  /** Account id → the cents its payments capture. */
  readonly captured: ReadonlyMap<string, number>;
  readonly payments: number;
}

export function expectedPayments(
  records: readonly WorkloadRecord[],
  orderConsumer: string,
): ExpectedPayments {
  const byAccount = new Map<string, string[]>();
  const captured = new Map<string, number>();
  const seen = new Set<string>();
  let payments = 0;
  for (const record of records) {
    if (record.poison !== undefined || record.value === null) continue;
    const order = JSON.parse(record.value.toString('utf8')) as {
      event_id: string;
      account_id: string;
      amount: number;
    };
    // A producer's second copy is a duplicate to the order consumer: it emits nothing.
    if (seen.has(order.event_id)) continue;
    seen.add(order.event_id);
    const ids = byAccount.get(order.account_id) ?? [];
    ids.push(outboxEventId(orderConsumer, order.event_id, 0));
    byAccount.set(order.account_id, ids);
    captured.set(order.account_id, (captured.get(order.account_id) ?? 0) + order.amount);
    payments++;
  }
  return { byAccount, captured, payments };
}
