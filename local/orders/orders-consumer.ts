/**
 * The harness's own consumer of the order workload (local/demo/workload.ts), written against the public
 * entry only: the bench builds it with createInboxConsumer, the soak and the poison harness with
 * createObservedInboxConsumer (the same, with their clock and outcome observer). It applies an
 * OrderPlaced the way the sample service does (sample/order-consumer/), on purpose: the demo checks the
 * deployed sample against the same expectations the soak checks this consumer against, so a change to
 * one that the other lacks shows up there.
 */
import {
  type DecodedRecord,
  type EffectPlan,
  EffectRejectedError,
  type InboxConsumerOptions,
  type InboxEffectInput,
} from '../../lambdas/core/index.js';

export const ORDER_PLACED = 'OrderPlaced';

export interface Order {
  readonly event_id: string;
  readonly type: typeof ORDER_PLACED;
  readonly order_id: string;
  readonly account_id: string;
  /** Cents: a positive whole number. */
  readonly amount: number;
}

/** Ids become DynamoDB keys: well-formed and far under 2,048 bytes. */
const MAX_ID_BYTES = 1_000;

const isId = (value: unknown): value is string =>
  typeof value === 'string' &&
  value !== '' &&
  value.isWellFormed() &&
  Buffer.byteLength(value) <= MAX_ID_BYTES;

/** A Standard Schema of an OrderPlaced, written by hand: the harness needs no schema library. */
export const OrderSchema = {
  '~standard': {
    version: 1,
    vendor: 'msk-inbox-harness',
    validate(value: unknown) {
      const order = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const issues = [
        ...(['event_id', 'order_id', 'account_id'] as const)
          .filter((field) => !isId(order[field]))
          .map((field) => ({
            path: [field],
            message: `must be a well-formed string of 1 to ${MAX_ID_BYTES} bytes`,
          })),
        ...(order.type === ORDER_PLACED ? [] : [{ path: ['type'], message: `must be "${ORDER_PLACED}"` }]),
        ...(typeof order.amount === 'number' && Number.isSafeInteger(order.amount) && order.amount > 0
          ? []
          : [{ path: ['amount'], message: 'must be a positive whole number of cents' }]),
      ];
      return issues.length > 0 ? { issues } : { value: order as unknown as Order };
    },
    types: undefined as unknown as { input: unknown; output: Order },
  },
} as const;

/** Records of another type are not this consumer's: acked with no write (a fixed reason: it is logged). */
export function skipOtherTypes(record: DecodedRecord): string | undefined {
  const value = record.parsed.ok ? record.parsed.value : undefined;
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type !== ORDER_PLACED ? 'other-event-type' : undefined;
}

/** The account debit and the order total, relative updates: only the inbox makes them exactly-once. */
export function orderWrites(appTableName: string, order: Pick<Order, 'account_id' | 'order_id' | 'amount'>) {
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

export function orderEffect(appTableName: string) {
  return ({ event, dedupKey }: InboxEffectInput<Order>): EffectPlan => {
    if (event.event_id !== dedupKey) {
      throw new EffectRejectedError(
        'invalid-event',
        'event_id in the value differs from the event_id header',
      );
    }
    return { kind: 'transact', writes: orderWrites(appTableName, event) };
  };
}

/** The harness consumer's options for createInboxConsumer. */
export function ordersConsumer(appTableName: string) {
  return {
    schema: OrderSchema,
    skip: skipOtherTypes,
    effect: orderEffect(appTableName),
  } satisfies InboxConsumerOptions<typeof OrderSchema>;
}
