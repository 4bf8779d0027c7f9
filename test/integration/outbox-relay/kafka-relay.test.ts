/**
 * The relay's handler with its real kafkajs publisher (lambdas/outbox-relay/kafka-publisher.ts, plaintext
 * as KAFKA_AUTH=none sets it) against the local Kafka broker (librdkafka's mock cluster, hosted by kcat)
 * and DynamoDB Local: what a consumer of the topic reads back, per key in commit order, each with its
 * event_id header. Skipped, with one line, where kcat is missing (test/support/broker.ts).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES as A } from '../../../lambdas/core/outbox-rows.js';
import { createRelayHandler, type RelayHandler } from '../../../lambdas/outbox-relay/handler.js';
import { KafkaPublisher } from '../../../lambdas/outbox-relay/kafka-publisher.js';
import { TransientPublishError } from '../../../lambdas/outbox-relay/publisher.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { BROKER_SKIP_NOTICE, skipBrokerTests } from '../../support/broker.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { readTopic } from '../../support/kcat-topic.js';
import { appendToOutbox, createOutboxBench, type OutboxBench, queueKey } from '../../support/outbox-relay.js';

// The integration project has no broker setup of its own: say once why these are skipped.
if (skipBrokerTests) console.warn(BROKER_SKIP_NOTICE);

const CONSUMER = 'orders';
const clock = new ManualClock(Date.now());
let cluster: KafkaMockCluster;
const publishers: KafkaPublisher[] = [];

beforeAll(async () => {
  if (!skipBrokerTests) cluster = await startKafkaMockCluster({ brokers: 3 });
});

afterAll(async () => {
  await Promise.allSettled(publishers.map((publisher) => publisher.disconnect()));
  await cluster?.stop();
});

/** The handler on the test's table, with the given publisher or one on the local broker as KAFKA_AUTH=none makes it. */
function handlerFor(bench: OutboxBench, given?: KafkaPublisher): RelayHandler {
  const publisher = given ?? new KafkaPublisher({ brokers: cluster.brokers, auth: 'none' });
  publishers.push(publisher);
  return createRelayHandler({
    config: {
      outboxTableName: bench.tableName,
      brokers: cluster.brokers,
      kafkaAuth: 'none',
      region: undefined,
      functionName: 'outbox-relay-test',
    },
    dynamoDb: bench.client,
    clock,
    publisher,
  });
}

async function rowExists(bench: OutboxBench, topic: string, key: string): Promise<boolean> {
  const { Item } = await bench.client.send(
    new GetItemCommand({
      TableName: bench.tableName,
      Key: { [A.pk]: { S: queueKey(CONSUMER, topic, key) } },
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}

describe.skipIf(skipBrokerTests)('the relay through the local Kafka broker', () => {
  it('publishes each key in commit order with event_id headers, and empties the outbox', async () => {
    const bench = await createOutboxBench();
    const topic = `relayed-${bench.tableName}`;
    const append = (key: string, source: string, values: string[]) =>
      appendToOutbox(bench.client, bench.tableName, {
        consumer: CONSUMER,
        topic,
        key,
        source,
        events: values.map((value) => ({ value, headers: { type: 'order-shipped' } })),
        committedAt: clock.nowMs(),
      });
    const a1 = await append('customer-a', 'order-1', ['a1', 'a2']);
    const b1 = await append('customer-b', 'order-2', ['b1']);
    const a2 = await append('customer-a', 'order-3', ['a3']);
    const handler = handlerFor(bench);

    const response = await handler(await bench.nextEvent(), lambdaContext(clock));

    expect(response).toEqual({ batchItemFailures: [] });
    const records = await readTopic(cluster.bootstrapServers, topic);
    const byKey = (key: string) => records.filter((record) => record.key === key);
    expect(byKey('customer-a').map((record) => [record.payload, record.headers.event_id])).toEqual([
      ['a1', a1[0]],
      ['a2', a1[1]],
      ['a3', a2[0]],
    ]);
    expect(byKey('customer-b').map((record) => [record.payload, record.headers.event_id])).toEqual([
      ['b1', b1[0]],
    ]);
    // One key, one partition: the order above is the partition's.
    expect(new Set(byKey('customer-a').map((record) => record.partition)).size).toBe(1);
    expect(records.every((record) => record.headers.type === 'order-shipped')).toBe(true);
    expect(await rowExists(bench, topic, 'customer-a')).toBe(false);
    expect(await rowExists(bench, topic, 'customer-b')).toBe(false);
  });

  it('reports the record while the broker is unreachable, keeps its events, and publishes them on the retry', async () => {
    const bench = await createOutboxBench();
    const topic = `retried-${bench.tableName}`;
    const ids = await appendToOutbox(bench.client, bench.tableName, {
      consumer: CONSUMER,
      topic,
      key: 'customer-a',
      source: 'order-1',
      events: [{ value: 'a1' }],
      committedAt: clock.nowMs(),
    });
    const event = await bench.nextEvent();
    // A port nothing listens on: the connection is refused at once, then retried by kafkajs twice.
    const unreachable = new KafkaPublisher({
      brokers: ['127.0.0.1:1'],
      auth: 'none',
      retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 100 },
    });

    const failed = await handlerFor(bench, unreachable)(event, lambdaContext(clock));

    expect(failed).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber }],
    });
    expect(await rowExists(bench, topic, 'customer-a')).toBe(true);

    const retried = await handlerFor(bench)(event, lambdaContext(clock));

    expect(retried).toEqual({ batchItemFailures: [] });
    expect(
      (await readTopic(cluster.bootstrapServers, topic)).map((record) => record.headers.event_id),
    ).toEqual(ids);
    expect(await rowExists(bench, topic, 'customer-a')).toBe(false);
  });

  it('throws a TransientPublishError, never poison, for a send after its broker went away', async () => {
    const lone = await startKafkaMockCluster({ brokers: 1 });
    const publisher = new KafkaPublisher({
      brokers: lone.brokers,
      auth: 'none',
      retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 100 },
    });
    publishers.push(publisher);
    const message = { key: 'customer-a', value: 'a1', headers: { event_id: 'id-1' } };
    try {
      expect(await publisher.publish('went-away', [message])).toEqual({ kind: 'published' });
    } finally {
      await lone.stop();
    }

    await expect(publisher.publish('went-away', [message])).rejects.toBeInstanceOf(TransientPublishError);
  });
});
