import { describe, expect, it } from 'vitest';
import { toEngineEffect } from '../../../lambdas/core/create-inbox-consumer.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import {
  OrderPlaced,
  orderConsumer,
  skipOtherEventTypes,
} from '../../../sample/order-consumer/order-placed.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';

const decode = (spec: Omit<RecordSpec, 'offset'>) => {
  const record = decodeEvent(kafkaEvent([{ offset: 1, ...spec }]))[0]?.records[0];
  if (!record) throw new Error('no record');
  return record;
};

const order = { event_id: 'e1', type: 'OrderPlaced', order_id: 'o1', account_id: 'a1', amount: 250 };

/** The schema's verdict as `path: message` lines, or 'ok'. */
const check = (value: unknown) => {
  const result = OrderPlaced.safeParse(value);
  return result.success
    ? 'ok'
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the OrderPlaced schema', () => {
  it('accepts a complete OrderPlaced', () => {
    expect(check(order)).toBe('ok');
  });

  it('lists every schema problem', () => {
    expect(check({ type: 'OrderPlaced', order_id: '', amount: 1.5 })).toEqual([
      'event_id: must be a well-formed string of 1 to 1000 bytes',
      'order_id: must be a well-formed string of 1 to 1000 bytes',
      'account_id: must be a well-formed string of 1 to 1000 bytes',
      'amount: must be a positive whole number of cents',
    ]);
    expect(check([order])).not.toBe('ok');
    expect(check({ ...order, amount: 0 })).not.toBe('ok');
  });

  it('refuses ids a DynamoDB key cannot hold faithfully: too long, or with lone surrogates', () => {
    expect(check({ ...order, account_id: 'a'.repeat(1_001) })).not.toBe('ok');
    expect(check({ ...order, order_id: 'o-\ud800' })).not.toBe('ok');
    expect(check({ ...order, account_id: '€'.repeat(333) })).toBe('ok');
  });
});

describe('the sample consumer (schema, then effect)', () => {
  const effect = toEngineEffect(orderConsumer('app-table'));

  it('plans the account debit and the order total as relative updates in one transaction', async () => {
    expect(await effect({ record: decode({ value: order }), dedupKey: 'e1' })).toEqual({
      kind: 'transact',
      writes: [
        expect.objectContaining({
          Update: expect.objectContaining({
            TableName: 'app-table',
            Key: { pk: 'account#a1' },
            UpdateExpression: 'SET #balance = if_not_exists(#balance, :zero) - :amount',
            ExpressionAttributeValues: { ':zero': 0, ':amount': 250 },
          }),
        }),
        expect.objectContaining({
          Update: expect.objectContaining({
            Key: { pk: 'order#o1' },
            ExpressionAttributeValues: { ':zero': 0, ':amount': 250, ':placed': 'PLACED' },
          }),
        }),
      ],
    });
  });

  it('rejects as invalid-event when the value is not JSON, fails the schema or disagrees with the header', async () => {
    await expect(effect({ record: decode({ value: 'nope' }), dedupKey: 'e1' })).rejects.toMatchObject({
      name: 'EffectRejectedError',
      reason: 'invalid-event',
    });
    await expect(
      effect({ record: decode({ value: { ...order, amount: -1 } }), dedupKey: 'e1' }),
    ).rejects.toMatchObject({
      name: 'EffectRejectedError',
      reason: 'invalid-event',
      message: 'invalid at amount',
    });
    await expect(effect({ record: decode({ value: order }), dedupKey: 'another' })).rejects.toMatchObject({
      name: 'EffectRejectedError',
      reason: 'invalid-event',
      message: 'event_id in the value differs from the event_id header',
    });
  });
});

describe('skipOtherEventTypes', () => {
  it('skips records of another type and keeps OrderPlaced, untyped and non-JSON records', () => {
    expect(skipOtherEventTypes(decode({ value: { type: 'OrderShipped' } }))).toBe('other-event-type');
    expect(skipOtherEventTypes(decode({ value: order }))).toBeUndefined();
    expect(skipOtherEventTypes(decode({ value: { event_id: 'x' } }))).toBeUndefined();
    expect(skipOtherEventTypes(decode({ value: 'plain text' }))).toBeUndefined();
  });
});
