/**
 * Events Kafka refuses for good (lambdas/outbox-relay/row-relay.ts, outbox-quarantine.ts) on DynamoDB Local
 * with an in-process broker: each is moved to a quarantine row in the transaction that takes it out of its
 * queue, and its key's other events are published, so a poison event never blocks its key or its shard.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE } from '../../../lambdas/core/outbox-rows.js';
import { pendingBytesOf } from '../../../lambdas/outbox-relay/queue-row.js';
import { relayBatch } from '../../../lambdas/outbox-relay/relay-batch.js';
import {
  CONSUMER,
  type RelayHarness,
  relayHarness,
  rowIds,
  sequenceNumbers,
  TOPIC,
} from '../../support/relay-harness.js';

let h: RelayHarness;

beforeEach(async () => {
  h = await relayHarness();
});

/** The fake broker refuses, alone or among others, the messages of these ids. */
function refuse(ids: readonly (string | undefined)[], answer: 'message-too-large' | 'invalid-record') {
  h.broker.answer = (_topic, messages) =>
    messages.some((message) => ids.includes(message.headers.event_id)) ? answer : 'published';
}

describe('poison events', () => {
  it("quarantines a poison event with its queue row's details while the key's other events are published", async () => {
    const [before, poison, after] = await h.append('customer-1', 'order-1', [
      '{"n":1}',
      'x'.repeat(50),
      '{"n":3}',
    ]);
    refuse([poison], 'message-too-large');

    const { response, summary } = await relayBatch(await h.bench.nextEvent(), h.deps());

    expect(response.batchItemFailures).toEqual([]);
    // The request of three is refused, so each is sent alone to learn which one Kafka refuses.
    expect(h.broker.calls.map((call) => call.messages.length)).toEqual([3, 1, 1, 1]);
    expect(h.broker.ackedIds()).toEqual([before, after]);
    expect(await h.queueRow('customer-1')).toBeUndefined();
    expect(await h.quarantineRow(poison as string)).toMatchObject({
      [A.consumer]: CONSUMER,
      [A.topic]: TOPIC,
      [A.kafkaKey]: 'customer-1',
      [A.event]: { id: poison, value: 'x'.repeat(50), headers: { type: 'order-shipped' }, source: 'order-1' },
      [A.reason]: 'message-too-large',
      [A.error]: 'message-too-large (fake)',
      [A.quarantinedAt]: h.clock.nowMs(),
      [A.change]: OUTBOX_CHANGE.quarantined,
    });
    expect(summary).toMatchObject({ published: 2, quarantined: 1 });
  });

  it('quarantines every event of a row whose topic Kafka does not know, in one send', async () => {
    const ids = await h.append('customer-1', 'order-1', ['{"n":1}', '{"n":2}']);
    h.broker.answer = () => 'unknown-topic';

    const { response, summary } = await relayBatch(await h.bench.nextEvent(), h.deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(h.broker.calls).toHaveLength(1);
    expect(await h.queueRow('customer-1')).toBeUndefined();
    expect(summary.quarantined).toBe(2);
    for (const id of ids) expect(await h.quarantineRow(id)).toMatchObject({ [A.reason]: 'unknown-topic' });
  });

  it('settles what came before a send that failed for now, and keeps the rest for the retry', async () => {
    const [acked, poison, waiting] = await h.append('customer-1', 'order-1', ['{"n":1}', 'bad', '{"n":3}']);
    const event = await h.bench.nextEvent();
    h.broker.answer = (_topic, messages) => {
      const ids = messages.map((message) => message.headers.event_id);
      if (ids.includes(waiting) && ids.length === 1) return 'transient';
      return ids.includes(poison) ? 'invalid-record' : 'published';
    };

    const { response, summary } = await relayBatch(event, h.deps());

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[0] }]);
    expect(h.broker.ackedIds()).toEqual([acked]);
    expect(await h.quarantineRow(poison as string)).toMatchObject({ [A.reason]: 'invalid-record' });
    const row = await h.queueRow('customer-1');
    expect(rowIds(row)).toEqual([waiting]);
    expect(row?.[A.pendingBytes]).toBe(pendingBytesOf('{"n":3}', 'customer-1', { type: 'order-shipped' }));
    expect(summary).toMatchObject({ published: 1, quarantined: 1, publishFailures: 1 });
  });

  it('quarantines from a row that was appended to after its image, keeping the later event', async () => {
    const [poison] = await h.append('customer-1', 'order-1', ['bad']);
    const event = await h.bench.nextEvent();
    const [later] = await h.append('customer-1', 'order-2', ['{"n":2}']);
    refuse([poison], 'message-too-large');

    const { response, summary } = await relayBatch(event, h.deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(summary.quarantined).toBe(1);
    expect(await h.quarantineRow(poison as string)).toMatchObject({ [A.reason]: 'message-too-large' });
    expect(rowIds(await h.queueRow('customer-1'))).toEqual([later]);
    expect(h.broker.ackedIds()).toEqual([]);
  });
});
