import { describe, expect, it } from 'vitest';
import { CallLedger } from '../../../bench/redis/call-ledger.js';
import type { Sequence } from '../../../bench/scenarios.js';
import type { OrderPlaced } from '../../../sample/order-consumer/order-placed.js';

const order = (eventId: string, accountId: string, amount: number): OrderPlaced => ({
  event_id: eventId,
  type: 'OrderPlaced',
  order_id: `order-${eventId}`,
  account_id: accountId,
  amount,
});

/** Two events on account a, one on b, each applied once. */
const sequence: Sequence = {
  name: 'three events',
  deliveries: [],
  expectedBalances: new Map([
    ['a', -30],
    ['b', -5],
  ]),
};

describe('the call ledger’s exactly-once check', () => {
  it('passes when each event ran once', () => {
    const ledger = new CallLedger();
    ledger.ran('e1', order('e1', 'a', 10));
    ledger.ran('e2', order('e2', 'a', 20));
    ledger.ran('e3', order('e3', 'b', 5));
    expect(() => ledger.check('inbox-call-redis', sequence)).not.toThrow();
  });

  it('fails when an event ran twice', () => {
    const ledger = new CallLedger();
    ledger.ran('e1', order('e1', 'a', 10));
    ledger.ran('e2', order('e2', 'a', 20));
    ledger.ran('e3', order('e3', 'b', 5));
    ledger.ran('e3', order('e3', 'b', 5));
    expect(() => ledger.check('inbox-call-redis', sequence)).toThrow(
      'inbox-call-redis ran the call for e3 2 times on "three events"',
    );
  });

  it('fails when an event never ran', () => {
    const ledger = new CallLedger();
    ledger.ran('e1', order('e1', 'a', 10));
    ledger.ran('e3', order('e3', 'b', 5));
    expect(() => ledger.check('inbox-call-dynamodb', sequence)).toThrow(
      'inbox-call-dynamodb did not apply "three events" exactly once: account a is -10, expected -30',
    );
  });
});
