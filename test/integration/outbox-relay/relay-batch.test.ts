/**
 * The relay's loop (lambdas/outbox-relay/relay-batch.ts) on DynamoDB Local with an in-process broker: the
 * outbox table's real stream records, read back as Lambda hands them over, rows appended as the consumer
 * appends them (test/support/outbox-relay.ts).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_CHANGE,
  outboxQuarantineKey,
} from '../../../lambdas/core/outbox-rows.js';
import type { Publisher } from '../../../lambdas/outbox-relay/publisher.js';
import { pendingBytesOf } from '../../../lambdas/outbox-relay/queue-row.js';
import {
  DEADLINE_MARGIN_MS,
  type RelayBatchDeps,
  relayBatch,
} from '../../../lambdas/outbox-relay/relay-batch.js';
import { ManualClock } from '../../support/clocks.js';
import {
  type AppendOptions,
  appendToOutbox,
  createOutboxBench,
  FakePublisher,
  type OutboxBench,
  queueKey,
} from '../../support/outbox-relay.js';
import { faultyClient, serviceUnavailableError } from '../../support/sdk-faults.js';

const CONSUMER = 'orders';
const TOPIC = 'order-events';
const COMMITTED_AT = Date.UTC(2026, 10, 29, 11, 59, 0);

let bench: OutboxBench;
let broker: FakePublisher;
let clock: ManualClock;
let logged: { level: string; message: string; details: Record<string, unknown> }[];

beforeEach(async () => {
  bench = await createOutboxBench();
  broker = new FakePublisher();
  clock = new ManualClock();
  logged = [];
});

function deps(overrides: Partial<RelayBatchDeps> = {}): RelayBatchDeps {
  return {
    table: { client: bench.client, tableName: bench.tableName },
    publisher: broker as Publisher,
    clock,
    log: {
      warn: (message, details) => logged.push({ level: 'warn', message, details }),
      error: (message, details) => logged.push({ level: 'error', message, details }),
    },
    ...overrides,
  };
}

function append(
  key: string,
  source: string,
  values: (string | Uint8Array)[],
  extra: Partial<AppendOptions> = {},
) {
  return appendToOutbox(bench.client, bench.tableName, {
    consumer: CONSUMER,
    topic: TOPIC,
    key,
    source,
    events: values.map((value) => ({ value, headers: { type: 'order-shipped' } })),
    committedAt: COMMITTED_AT,
    ...extra,
  });
}

async function queueRow(key: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await bench.client.send(
    new GetItemCommand({
      TableName: bench.tableName,
      Key: { [A.pk]: { S: queueKey(CONSUMER, TOPIC, key) } },
      ConsistentRead: true,
    }),
  );
  return Item ? unmarshall(Item) : undefined;
}

function rowIds(row: Record<string, unknown> | undefined): string[] {
  return ((row?.[A.events] as { id: string }[] | undefined) ?? []).map((event) => event.id);
}

function sequenceNumbers(event: DynamoDBStreamEvent): string[] {
  return event.Records.map((record) => record.dynamodb?.SequenceNumber as string);
}

describe('relayBatch', () => {
  it("publishes a row's events in commit order with their event_id headers, then removes the row", async () => {
    const first = await append('customer-1', 'order-1', ['{"n":1}', Buffer.from([0, 1, 255])]);
    const second = await append('customer-1', 'order-2', ['{"n":3}']);
    const event = await bench.nextEvent();
    expect(event.Records).toHaveLength(2);

    const { response, summary } = await relayBatch(event, deps());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(broker.ackedIds()).toEqual([...first, ...second]);
    expect(broker.acked.map((message) => message.key)).toEqual(['customer-1', 'customer-1', 'customer-1']);
    expect(broker.acked[0]?.headers).toEqual({ type: 'order-shipped', event_id: first[0] });
    expect(broker.acked[0]?.value).toBe('{"n":1}');
    expect(Buffer.from(broker.acked[1]?.value as Uint8Array)).toEqual(Buffer.from([0, 1, 255]));
    expect(broker.acked.every((message) => message.topic === TOPIC)).toBe(true);
    expect(await queueRow('customer-1')).toBeUndefined();
    expect(summary).toMatchObject({
      published: 3,
      quarantined: 0,
      publishLagMs: clock.nowMs() - COMMITTED_AT,
    });
    // The second record's image still listed the first two: this invocation had removed them, so they
    // went once. Its removals (the first, behind the later append, an Update) are no appends.
    const after = await bench.nextEvent({ unfiltered: true });
    expect(
      after.Records.map((record) => record.dynamodb?.NewImage?.[A.change]?.S ?? record.eventName),
    ).toEqual([OUTBOX_CHANGE.published, 'REMOVE']);
    expect((await bench.nextEvent()).Records).toEqual([]);
  });

  it('keeps an event appended after the image it published from, and publishes it from its own record', async () => {
    const [published] = await append('customer-1', 'order-1', ['{"n":1}']);
    const firstEvent = await bench.nextEvent();
    const [appendedLater] = await append('customer-1', 'order-2', ['{"n":2}']);
    clock.advance(1_000);

    const { response } = await relayBatch(firstEvent, deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(broker.ackedIds()).toEqual([published]);
    const row = await queueRow('customer-1');
    expect(rowIds(row)).toEqual([appendedLater]);
    expect(row).toMatchObject({
      [A.pendingBytes]: pendingBytesOf('{"n":2}', 'customer-1', { type: 'order-shipped' }),
      [A.oldestAt]: COMMITTED_AT,
      [A.change]: OUTBOX_CHANGE.published,
    });

    // The next invocation's image still lists the event removed above, and it has no memory of that: a
    // duplicate under the same id, which the next consumer's inbox absorbs.
    const { response: next } = await relayBatch(await bench.nextEvent(), deps());

    expect(next.batchItemFailures).toEqual([]);
    expect(broker.ackedIds()).toEqual([published, published, appendedLater]);
    expect(await queueRow('customer-1')).toBeUndefined();
  });

  it('reports the first record whose send failed for now, and stops there', async () => {
    const [one] = await append('customer-1', 'order-1', ['{"n":1}']);
    const [two] = await append('customer-2', 'order-2', ['{"n":2}']);
    await append('customer-3', 'order-3', ['{"n":3}']);
    const event = await bench.nextEvent();
    broker.answer = (_topic, messages) => (messages[0]?.key === 'customer-2' ? 'transient' : 'published');

    const { response, summary } = await relayBatch(event, deps());

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[1] }]);
    expect(broker.calls.map((call) => call.messages[0]?.key)).toEqual(['customer-1', 'customer-2']);
    expect(await queueRow('customer-1')).toBeUndefined();
    expect(rowIds(await queueRow('customer-2'))).toEqual([two]);
    expect(rowIds(await queueRow('customer-3'))).toHaveLength(1);
    expect(summary).toMatchObject({ published: 1, publishFailures: 1, storeFailures: 0 });
    expect(broker.ackedIds()).toEqual([one]);
  });

  it("quarantines a poison event with its queue row's details while the key's other events are published", async () => {
    const [before, poison, after] = await append('customer-1', 'order-1', [
      '{"n":1}',
      'x'.repeat(50),
      '{"n":3}',
    ]);
    const event = await bench.nextEvent();
    broker.answer = (_topic, messages) =>
      messages.some((message) => message.headers.event_id === poison) ? 'message-too-large' : 'published';

    const { response, summary } = await relayBatch(event, deps());

    expect(response.batchItemFailures).toEqual([]);
    // The request of three is refused, so each is sent alone to learn which one Kafka refuses.
    expect(broker.calls.map((call) => call.messages.length)).toEqual([3, 1, 1, 1]);
    expect(broker.ackedIds()).toEqual([before, after]);
    expect(await queueRow('customer-1')).toBeUndefined();
    const quarantined = await bench.client.send(
      new GetItemCommand({
        TableName: bench.tableName,
        Key: { [A.pk]: { S: outboxQuarantineKey(CONSUMER, poison as string) } },
        ConsistentRead: true,
      }),
    );
    expect(unmarshall(quarantined.Item ?? {})).toMatchObject({
      [A.consumer]: CONSUMER,
      [A.topic]: TOPIC,
      [A.kafkaKey]: 'customer-1',
      [A.event]: { id: poison, value: 'x'.repeat(50), headers: { type: 'order-shipped' }, source: 'order-1' },
      [A.reason]: 'message-too-large',
      [A.error]: 'message-too-large (fake)',
      [A.quarantinedAt]: clock.nowMs(),
      [A.change]: OUTBOX_CHANGE.quarantined,
    });
    expect(summary).toMatchObject({ published: 2, quarantined: 1 });
  });

  it('quarantines every event of a row whose topic Kafka does not know, in one send', async () => {
    const ids = await append('customer-1', 'order-1', ['{"n":1}', '{"n":2}']);
    broker.answer = () => 'unknown-topic';

    const { response, summary } = await relayBatch(await bench.nextEvent(), deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(broker.calls).toHaveLength(1);
    expect(await queueRow('customer-1')).toBeUndefined();
    expect(summary.quarantined).toBe(2);
    for (const id of ids) {
      const { Item } = await bench.client.send(
        new GetItemCommand({
          TableName: bench.tableName,
          Key: { [A.pk]: { S: outboxQuarantineKey(CONSUMER, id) } },
          ConsistentRead: true,
        }),
      );
      expect(Item?.[A.reason]?.S).toBe('unknown-topic');
    }
  });

  it('publishes the same ids again when the removal failed after the send: duplicates, never a new id', async () => {
    const ids = await append('customer-1', 'order-1', ['{"n":1}', '{"n":2}']);
    const event = await bench.nextEvent();
    const failing = faultyClient(({ commandName }) =>
      commandName === 'DeleteItemCommand' || commandName === 'UpdateItemCommand'
        ? serviceUnavailableError()
        : undefined,
    );

    const crashed = await relayBatch(
      event,
      deps({ table: { client: failing.client, tableName: bench.tableName } }),
    );

    expect(crashed.response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[0] }]);
    expect(crashed.summary).toMatchObject({ published: 2, storeFailures: 1 });
    expect(rowIds(await queueRow('customer-1'))).toEqual(ids);

    // Lambda retries from the reported record.
    const retried = await relayBatch(event, deps());

    expect(retried.response.batchItemFailures).toEqual([]);
    expect(broker.ackedIds()).toEqual([...ids, ...ids]);
    expect(await queueRow('customer-1')).toBeUndefined();
  });

  it('leaves records that are no append alone: removals and quarantines never publish again', async () => {
    await append('customer-1', 'order-1', ['{"n":1}']);
    await append('customer-1', 'order-2', ['{"n":2}']);
    const appends = await bench.nextEvent();
    await relayBatch({ Records: appends.Records.slice(0, 1) }, deps());
    const unfiltered = await bench.nextEvent({ unfiltered: true });
    expect(unfiltered.Records.map((record) => record.dynamodb?.NewImage?.[A.change]?.S)).toEqual([
      OUTBOX_CHANGE.published,
    ]);
    const sent = broker.calls.length;

    const { response, summary } = await relayBatch(unfiltered, deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(broker.calls).toHaveLength(sent);
    expect(summary.skipped).toBe(1);
  });

  it('starts no record with less than its margin left, and reports the first one instead', async () => {
    await append('customer-1', 'order-1', ['{"n":1}']);
    const event = await bench.nextEvent();

    const { response } = await relayBatch(event, deps({ remainingMs: () => DEADLINE_MARGIN_MS - 1 }));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceNumbers(event)[0] }]);
    expect(broker.calls).toEqual([]);
  });

  it('skips and counts a row it cannot read, and relays the records after it', async () => {
    await append('customer-1', 'order-1', ['{"n":1}']);
    const event = await bench.nextEvent();
    const broken = structuredClone(event.Records);
    delete broken[0]?.dynamodb?.NewImage?.[A.topic];
    const [later] = await append('customer-2', 'order-2', ['{"n":2}']);
    const next = await bench.nextEvent();

    const { response, summary } = await relayBatch({ Records: [...broken, ...next.Records] }, deps());

    expect(response.batchItemFailures).toEqual([]);
    expect(summary.malformedRows).toBe(1);
    expect(broker.ackedIds()).toEqual([later]);
    expect(logged.map((entry) => entry.message)).toEqual(['queue row skipped: unreadable']);
  });
});
