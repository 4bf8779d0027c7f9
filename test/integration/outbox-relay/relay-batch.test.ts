import type { DynamoDBRecord } from 'aws-lambda';
/**
 * The relay's loop (lambdas/outbox-relay/relay-batch.ts) on DynamoDB Local with an in-process broker: the
 * outbox table's real stream records, read back as Lambda hands them over, rows appended as the consumer
 * appends them (test/support/relay-harness.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE } from '../../../lambdas/core/outbox-rows.js';
import { PublishedIds } from '../../../lambdas/outbox-relay/published-ids.js';
import { pendingBytesOf } from '../../../lambdas/outbox-relay/queue-row.js';
import { DEADLINE_MARGIN_MS, relayBatch } from '../../../lambdas/outbox-relay/relay-batch.js';
import {
  COMMITTED_AT,
  type RelayHarness,
  relayHarness,
  rowIds,
  sequenceNumbers,
  TOPIC,
} from '../../support/relay-harness.js';
import { faultyClient, serviceUnavailableError } from '../../support/sdk-faults.js';

let h: RelayHarness;

beforeEach(async () => {
  h = await relayHarness();
});

describe('relayBatch', () => {
  it("publishes a row's events in commit order with their event_id headers, then removes the row", async () => {
    const first = await h.append('customer-1', 'order-1', ['{"n":1}', Buffer.from([0, 1, 255])]);
    const second = await h.append('customer-1', 'order-2', ['{"n":3}']);
    const event = await h.bench.nextEvent();
    expect(event.Records).toHaveLength(2);

    const { response, summary } = await relayBatch(event, h.deps());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(h.broker.ackedIds()).toEqual([...first, ...second]);
    expect(h.broker.acked.map((message) => message.key)).toEqual(['customer-1', 'customer-1', 'customer-1']);
    expect(h.broker.acked[0]?.headers).toEqual({ type: 'order-shipped', event_id: first[0] });
    expect(h.broker.acked[0]?.value).toBe('{"n":1}');
    expect(Buffer.from(h.broker.acked[1]?.value as Uint8Array)).toEqual(Buffer.from([0, 1, 255]));
    expect(h.broker.acked.every((message) => message.topic === TOPIC)).toBe(true);
    expect(await h.queueRow('customer-1')).toBeUndefined();
    expect(summary).toMatchObject({
      published: 3,
      quarantined: 0,
      publishLagMs: h.clock.nowMs() - COMMITTED_AT,
    });
    // The row went once, from its latest image (which lists the first record's events too): one Delete
    // of the whole list, and nothing that invokes the relay again.
    const after = await h.bench.nextEvent({ unfiltered: true });
    expect(
      after.Records.map((record) => record.dynamodb?.NewImage?.[A.change]?.S ?? record.eventName),
    ).toEqual(['REMOVE']);
    expect((await h.bench.nextEvent()).Records).toEqual([]);
  });

  it('keeps an event appended after the image it published from, and publishes it from its own record', async () => {
    const [published] = await h.append('customer-1', 'order-1', ['{"n":1}']);
    const firstEvent = await h.bench.nextEvent();
    const [appendedLater] = await h.append('customer-1', 'order-2', ['{"n":2}']);
    h.clock.advance(1_000);

    const { response } = await relayBatch(firstEvent, h.deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(h.broker.ackedIds()).toEqual([published]);
    const row = await h.queueRow('customer-1');
    expect(rowIds(row)).toEqual([appendedLater]);
    expect(row).toMatchObject({
      [A.pendingBytes]: pendingBytesOf('{"n":2}', 'customer-1', { type: 'order-shipped' }),
      [A.oldestAt]: COMMITTED_AT,
      [A.change]: OUTBOX_CHANGE.published,
    });

    // The next invocation's image still lists the event removed above, and it has no memory of that: a
    // duplicate under the same id, which the next consumer's inbox absorbs.
    const { response: next } = await relayBatch(await h.bench.nextEvent(), h.deps());

    expect(next.batchItemFailures).toEqual([]);
    expect(h.broker.ackedIds()).toEqual([published, published, appendedLater]);
    expect(await h.queueRow('customer-1')).toBeUndefined();
  });

  it('reports the first record whose send failed for now, and stops there', async () => {
    const [one] = await h.append('customer-1', 'order-1', ['{"n":1}']);
    const [two] = await h.append('customer-2', 'order-2', ['{"n":2}']);
    await h.append('customer-3', 'order-3', ['{"n":3}']);
    const event = await h.bench.nextEvent();
    h.broker.answer = (_topic, messages) => (messages[0]?.key === 'customer-2' ? 'transient' : 'published');

    const { response, summary } = await relayBatch(event, h.deps());

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[1] }]);
    expect(h.broker.calls.map((call) => call.messages[0]?.key)).toEqual(['customer-1', 'customer-2']);
    expect(await h.queueRow('customer-1')).toBeUndefined();
    expect(rowIds(await h.queueRow('customer-2'))).toEqual([two]);
    expect(rowIds(await h.queueRow('customer-3'))).toHaveLength(1);
    expect(summary).toMatchObject({ published: 1, publishFailures: 1, storeFailures: 0 });
    expect(h.broker.ackedIds()).toEqual([one]);
  });

  it('publishes the same ids again when the removal failed after the send: duplicates, never a new id', async () => {
    const ids = await h.append('customer-1', 'order-1', ['{"n":1}', '{"n":2}']);
    const event = await h.bench.nextEvent();
    const failing = faultyClient(({ commandName }) =>
      commandName === 'DeleteItemCommand' || commandName === 'UpdateItemCommand'
        ? serviceUnavailableError()
        : undefined,
    );

    const crashed = await relayBatch(
      event,
      h.deps({ table: { client: failing.client, tableName: h.bench.tableName } }),
    );

    expect(crashed.response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[0] }]);
    expect(crashed.summary).toMatchObject({ published: 2, storeFailures: 1 });
    expect(rowIds(await h.queueRow('customer-1'))).toEqual(ids);

    // Lambda retries from the reported record.
    const retried = await relayBatch(event, h.deps());

    expect(retried.response.batchItemFailures).toEqual([]);
    expect(h.broker.ackedIds()).toEqual([...ids, ...ids]);
    expect(await h.queueRow('customer-1')).toBeUndefined();
  });

  it('leaves records that are no append alone: removals and quarantines never publish again', async () => {
    await h.append('customer-1', 'order-1', ['{"n":1}']);
    await h.append('customer-1', 'order-2', ['{"n":2}']);
    const appends = await h.bench.nextEvent();
    await relayBatch({ Records: appends.Records.slice(0, 1) }, h.deps());
    const unfiltered = await h.bench.nextEvent({ unfiltered: true });
    expect(unfiltered.Records.map((record) => record.dynamodb?.NewImage?.[A.change]?.S)).toEqual([
      OUTBOX_CHANGE.published,
    ]);
    const sent = h.broker.calls.length;

    const { response, summary } = await relayBatch(unfiltered, h.deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(h.broker.calls).toHaveLength(sent);
    expect(summary.skipped).toBe(1);
  });

  it('starts no record after the first with less than its margin left, and reports that record', async () => {
    const [first] = await h.append('customer-1', 'order-1', ['{"n":1}']);
    await h.append('customer-2', 'order-2', ['{"n":2}']);
    const event = await h.bench.nextEvent();

    const { response } = await relayBatch(event, h.deps({ remainingMs: () => DEADLINE_MARGIN_MS - 1 }));

    // The first runs whatever the time left, so a short timeout never stops the shard.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[1] }]);
    expect(h.broker.ackedIds()).toEqual([first]);
  });

  it('skips and counts a row it cannot read, and relays the records after it', async () => {
    await h.append('customer-1', 'order-1', ['{"n":1}']);
    const event = await h.bench.nextEvent();
    const broken = structuredClone(event.Records);
    delete broken[0]?.dynamodb?.NewImage?.[A.topic];
    const [later] = await h.append('customer-2', 'order-2', ['{"n":2}']);
    const next = await h.bench.nextEvent();

    const { response, summary } = await relayBatch({ Records: [...broken, ...next.Records] }, h.deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(summary.malformedRows).toBe(1);
    expect(h.broker.ackedIds()).toEqual([later]);
    expect(h.logged.map((entry) => entry.message)).toEqual(['queue row skipped: unreadable']);
  });

  it("sends a row's events once when an image from before a removal comes in a later invocation (the container's memory)", async () => {
    const first = await h.append('customer-1', 'order-1', ['{"n":1}']);
    const second = await h.append('customer-1', 'order-2', ['{"n":2}']);
    const event = await h.bench.nextEvent();
    const [older, newer] = event.Records;
    const publishedIds = new PublishedIds();

    // Invocation 1 has the first change only: it publishes and removes the first event.
    await relayBatch({ Records: [older as DynamoDBRecord] }, h.deps({ publishedIds }));
    // Invocation 2 has the second change, whose image still lists the first event.
    await relayBatch({ Records: [newer as DynamoDBRecord] }, h.deps({ publishedIds }));

    expect(h.broker.ackedIds()).toEqual([...first, ...second]);
    expect(await h.queueRow('customer-1')).toBeUndefined();
  });

  it('without that memory, the later invocation sends the first event again, under its id', async () => {
    const first = await h.append('customer-1', 'order-1', ['{"n":1}']);
    const second = await h.append('customer-1', 'order-2', ['{"n":2}']);
    const [older, newer] = (await h.bench.nextEvent()).Records;

    await relayBatch({ Records: [older as DynamoDBRecord] }, h.deps());
    await relayBatch({ Records: [newer as DynamoDBRecord] }, h.deps());

    expect(h.broker.ackedIds()).toEqual([...first, ...first, ...second]);
  });
});
