/**
 * The sample service's effect: an OrderPlaced debits the account and adds to the order total, in the
 * same transaction as the inbox row. The updates are relative on purpose: only the inbox makes them
 * exactly-once.
 */
import type { DecodedRecord } from '../core/decode-event.js';
import type { Effect, EffectPlan } from '../core/effect.js';

export const ORDER_PLACED = 'OrderPlaced';

/** Longest id, in UTF-8 bytes: `account#` plus it stays far under DynamoDB's 2,048-byte key limit. */
const MAX_ID_BYTES = 1_000;

export interface OrderPlaced {
  readonly event_id: string;
  readonly type: typeof ORDER_PLACED;
  readonly order_id: string;
  readonly account_id: string;
  /** Cents; a positive integer. */
  readonly amount: number;
}

export type OrderValidation =
  | { readonly ok: true; readonly order: OrderPlaced }
  | { readonly ok: false; readonly problems: string[] };

export function validateOrderPlaced(value: unknown): OrderValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: ['the value is not a JSON object'] };
  }
  const event = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const field of ['event_id', 'order_id', 'account_id'] as const) {
    const id = event[field];
    // Ids become DynamoDB keys: well-formed (a lone surrogate would be stored as U+FFFD, so two ids could
    // share one account) and far under the 2,048-byte key limit.
    if (typeof id !== 'string' || id === '' || !id.isWellFormed() || Buffer.byteLength(id) > MAX_ID_BYTES)
      problems.push(`${field} must be a well-formed string of 1 to ${MAX_ID_BYTES} bytes`);
  }
  if (event.type !== ORDER_PLACED) problems.push(`type must be "${ORDER_PLACED}"`);
  const amount = event.amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    problems.push('amount must be a positive whole number of cents');
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, order: event as unknown as OrderPlaced };
}

/** Records of another type are not this consumer's business: acked with no write. */
export function skipOtherEventTypes(record: DecodedRecord): string | undefined {
  const json = record.json;
  if (!json.ok || typeof json.value !== 'object' || json.value === null) return undefined;
  const type = (json.value as Record<string, unknown>).type;
  // A fixed reason: the type is the producer's text, and reasons reach the logs.
  return typeof type === 'string' && type !== ORDER_PLACED ? 'other-event-type' : undefined;
}

export function orderPlacedEffect(appTableName: string): Effect {
  return ({ record, dedupKey }): EffectPlan => {
    const json = record.json;
    if (!json.ok) return { kind: 'reject', reason: 'invalid-event', message: json.error };
    const validation = validateOrderPlaced(json.value);
    if (!validation.ok)
      return { kind: 'reject', reason: 'invalid-event', message: validation.problems.join('; ') };
    const { order } = validation;
    if (order.event_id !== dedupKey) {
      return {
        kind: 'reject',
        reason: 'invalid-event',
        message: 'event_id in the value differs from the event_id header',
      };
    }
    return { kind: 'transact', writes: orderPlacedWrites(appTableName, order) };
  };
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
