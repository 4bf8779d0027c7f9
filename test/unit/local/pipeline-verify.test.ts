import { describe, expect, it } from 'vitest';
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import { expectedPayments } from '../../../local/demo/pipeline/pipeline-expectations.js';
import { type PipelineObservations, verifyPipeline } from '../../../local/demo/pipeline/pipeline-verify.js';
import type { WorkloadRecord } from '../../../local/demo/workload.js';

const order = (
  offset: number,
  eventId: string,
  account: string,
  amount: number,
  extra: Partial<WorkloadRecord> = {},
) =>
  ({
    topic: 'orders',
    key: Buffer.from(account),
    value: Buffer.from(
      JSON.stringify({ event_id: eventId, account_id: account, amount, order_id: `o${offset}` }),
    ),
    headers: [],
    ...extra,
  }) as unknown as WorkloadRecord;

const records = [
  order(0, 'e1', 'a', 10),
  order(1, 'e2', 'b', 20),
  order(2, 'e3', 'a', 30),
  order(3, 'e1', 'a', 10, { producerDuplicate: true }),
  order(4, 'e4', 'a', 40, { poison: 'invalid-amount' }),
];
const expected = expectedPayments(records, 'orders');
const [p1, p3] = [outboxEventId('orders', 'e1', 0), outboxEventId('orders', 'e3', 0)];
const p2 = outboxEventId('orders', 'e2', 0);

const good: PipelineObservations = {
  ledger: new Map([
    ['a', { applied: [p1, p3], captured: 40 }],
    ['b', { applied: [p2], captured: 20 }],
  ]),
  // A republish of p1 after p3: a later copy, absorbed downstream.
  publishedByKey: new Map([
    ['a', [p1, p3, p1]],
    ['b', [p2]],
  ]),
  outboxQueueRows: 0,
  outboxQuarantineRows: 0,
  otherProblems: [],
};

describe('the pipeline verification', () => {
  it('expects one payment per unique valid order, per account in commit order', () => {
    expect(expected.byAccount).toEqual(
      new Map([
        ['a', [p1, p3]],
        ['b', [p2]],
      ]),
    );
    expect(expected.captured).toEqual(
      new Map([
        ['a', 40],
        ['b', 20],
      ]),
    );
  });

  it('passes a run where every payment was published, applied once in order, and the outbox is empty', () => {
    expect(verifyPipeline(expected, good)).toEqual({ ok: true, problems: [], payments: 3, republished: 1 });
  });

  it.each<[string, Partial<PipelineObservations>, RegExp]>([
    [
      'a payment never published',
      { publishedByKey: new Map([['a', [p1, p3]]]) },
      /never published: b: 1 of 1/,
    ],
    [
      'first copies out of commit order',
      {
        publishedByKey: new Map([
          ['a', [p3, p1]],
          ['b', [p2]],
        ]),
      },
      /out of commit order, e.g. a/,
    ],
    [
      'a payment applied twice',
      {
        ledger: new Map([
          ['a', { applied: [p1, p3, p1], captured: 50 }],
          ['b', { applied: [p2], captured: 20 }],
        ]),
      },
      /not applied exactly once/,
    ],
    [
      'payments applied out of order',
      {
        ledger: new Map([
          ['a', { applied: [p3, p1], captured: 40 }],
          ['b', { applied: [p2], captured: 20 }],
        ]),
      },
      /not applied exactly once/,
    ],
    [
      'an event nobody emitted',
      {
        publishedByKey: new Map([
          ['a', [p1, p3]],
          ['b', [p2, 'x']],
        ]),
      },
      /nobody emitted/,
    ],
    ['events left in the outbox', { outboxQueueRows: 1 }, /still hold events/],
    ['a quarantined outbox event', { outboxQuarantineRows: 2 }, /2 outbox events quarantined/],
  ])('fails on %s', (_, change, problem) => {
    const result = verifyPipeline(expected, { ...good, ...change });
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(problem);
  });
});
