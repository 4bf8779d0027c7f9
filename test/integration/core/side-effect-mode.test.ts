import { beforeEach, describe, expect, it } from 'vitest';
import { processBatch } from '../../../lambdas/core/batch-processor.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../../lambdas/core/dedup-key.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import { EffectRejectedError } from '../../../lambdas/core/errors.js';
import { dedupRowKey } from '../../../lambdas/core/inbox-rows.js';
import { ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { dynamoDbStore, entry } from '../../support/inbox-store.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER } from '../../support/order-consumer.js';

describe('side-effect mode (claim → effect → complete) against DynamoDB Local', () => {
  let tables: TestTables;
  let clock: ManualClock;
  beforeEach(async () => {
    tables = await createTestTables();
    clock = new ManualClock();
  });

  function run(
    effect: Effect,
    event = kafkaEvent([orderRecord(1, { eventId: 'e1' }), orderRecord(2, { eventId: 'e2' })]),
  ) {
    return processBatch(decodeEvent(event), {
      store: dynamoDbStore(tables, clock),
      effect,
      dedupKeyPolicy: DEFAULT_DEDUP_KEY_POLICY,
      clock,
      remainingTimeMs: () => 30_000,
      deadlineMarginMs: 1_000,
      leaseMarginMs: 5_000,
      partitionConcurrency: 4,
    });
  }

  it('runs each effect once across redeliveries and completes its row', async () => {
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({ kind: 'call', run: async () => void calls.push(dedupKey) });

    const first = await run(effect);
    const second = await run(effect);

    expect(calls).toEqual(['e1', 'e2']);
    expect(first.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(second.map((o) => o.status)).toEqual(['duplicate', 'duplicate']);
    expect(await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'e1'))).toMatchObject({
      status: 'COMPLETED',
    });
  });

  it('releases the claim and reports the record when the effect throws, so the redelivery runs it', async () => {
    let failing = true;
    const calls: string[] = [];
    const effect: Effect = ({ dedupKey }) => ({
      kind: 'call',
      run: async (lease) => {
        calls.push(`${dedupKey}:${lease.token.slice(0, 4)}`);
        if (failing && dedupKey === 'e1') throw new Error('payment gateway timed out');
      },
    });

    const first = await run(effect);
    expect(first.map((o) => [o.status, o.reason])).toEqual([
      ['failed', 'effect-error'],
      ['blocked', 'not-started'],
    ]);
    expect(await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'e1'))).toBeUndefined();

    failing = false;
    const second = await run(effect);
    expect(second.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(calls.filter((call) => call.startsWith('e1'))).toHaveLength(2);
  });

  it('quarantines the record when the effect rejects it for good', async () => {
    const effect: Effect = () => ({
      kind: 'call',
      run: async () => {
        throw new EffectRejectedError('card-declined', 'the card was declined');
      },
    });

    const outcomes = await run(effect, kafkaEvent([orderRecord(1, { eventId: 'e1' })]));

    expect(outcomes).toMatchObject([{ status: 'quarantined', reason: 'card-declined' }]);
    expect(await tables.get(tables.inboxTableName, `${CONSUMER}!quarantine#orders-0@1`)).toMatchObject({
      reason: 'card-declined',
    });
  });

  it('reports a record whose key another attempt is running, and never runs it concurrently', async () => {
    const other = await dynamoDbStore(tables, clock).claim(entry('e1'), clock.nowMs() + 60_000);
    expect(other.kind).toBe('claimed');
    const calls: string[] = [];

    const outcomes = await run(({ dedupKey }) => ({
      kind: 'call',
      run: async () => void calls.push(dedupKey),
    }));

    expect(outcomes.map((o) => o.status)).toEqual(['in-flight', 'blocked']);
    expect(calls).toEqual([]);
  });

  it('counts a lost lease when another attempt took the key over while the effect ran', async () => {
    const outcomes = await run(
      () => ({
        kind: 'call',
        run: async () => {
          // The effect outlives its lease; another attempt takes the key over meanwhile.
          clock.advance(40_000);
          const takeover = await dynamoDbStore(tables, clock).claim(entry('e1'), clock.nowMs() + 60_000);
          expect(takeover.kind).toBe('claimed');
        },
      }),
      kafkaEvent([orderRecord(1, { eventId: 'e1' })]),
    );

    expect(outcomes).toMatchObject([{ status: 'processed', leaseLost: true }]);
    // The newer attempt's row is untouched by the stale completion.
    expect(await tables.get(tables.inboxTableName, dedupRowKey(CONSUMER, 'e1'))).toMatchObject({
      status: 'IN_PROGRESS',
    });
  });
});
