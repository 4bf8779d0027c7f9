/**
 * The in-memory log's Kafka-protocol front (local/kafka/memory-broker/) against the real client over the
 * real wire: a kafkajs producer configured as the outbox relay's (acks -1, not idempotent, one request in
 * flight) produces, and the records are read back from the InMemoryLog.
 */
import { connect } from 'node:net';
import {
  CompressionTypes,
  type IHeaders,
  Kafka,
  logLevel,
  type Message,
  type PartitionerArgs,
  Partitioners,
  type Producer,
  type ProducerConfig,
} from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryLog } from '../../../local/esm/in-memory-log.js';
import { partitionForKey } from '../../../local/esm/kafka-partitioner.js';
import type { RecordHeader, TopicPartition } from '../../../local/esm/record-source.js';
import {
  type MemoryBroker,
  type MemoryBrokerOptions,
  startMemoryBroker,
} from '../../../local/kafka/memory-broker/memory-broker.js';

const brokers: MemoryBroker[] = [];
const producers: Producer[] = [];
const protocolErrors: Error[] = [];

afterEach(async () => {
  await Promise.allSettled(producers.splice(0).map((producer) => producer.disconnect()));
  await Promise.all(brokers.splice(0).map((broker) => broker.close()));
  // Nothing kafkajs sends may be a request the front fails to parse.
  expect(protocolErrors.splice(0)).toEqual([]);
});

async function startBroker(log: InMemoryLog, options: MemoryBrokerOptions = {}): Promise<MemoryBroker> {
  const broker = await startMemoryBroker(log, {
    onProtocolError: (error) => protocolErrors.push(error),
    ...options,
  });
  brokers.push(broker);
  return broker;
}

/** The relay's producer settings; retries kept small so the retriable error's path ends quickly. */
async function connectProducer(broker: MemoryBroker, config: ProducerConfig = {}): Promise<Producer> {
  const kafka = new Kafka({
    brokers: [broker.bootstrapServers],
    logLevel: logLevel.NOTHING,
    // The client's own retries (connecting, metadata): short, so a closed broker fails a send quickly.
    retry: { retries: 2, initialRetryTime: 20 },
  });
  const producer = kafka.producer({
    idempotent: false,
    maxInFlightRequests: 1,
    retry: { retries: 2, initialRetryTime: 20 },
    ...config,
  });
  producers.push(producer);
  await producer.connect();
  return producer;
}

function recordsOf(log: InMemoryLog, topicPartition: TopicPartition) {
  return log.read(topicPartition, 0, Number.MAX_SAFE_INTEGER);
}

/** kafkajs takes headers as an object; a repeated name is an array, sent as consecutive headers. */
function headerList(headers: IHeaders | undefined): RecordHeader[] {
  return Object.entries(headers ?? {}).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((one) => ({ key, value: Buffer.from(one as Buffer) })),
  );
}

describe('startMemoryBroker', () => {
  it('appends what a kafkajs producer sends to two topics: in order, exact bytes and headers, on the partitions its default partitioner picks', async () => {
    const log = new InMemoryLog({ topics: { orders: 4, payments: 3 } });
    const broker = await startBroker(log);
    const chosen = new Map<Message, number>();
    const defaultPartitioner = Partitioners.DefaultPartitioner();
    const producer = await connectProducer(broker, {
      createPartitioner: () => (args: PartitionerArgs) => {
        const partition = defaultPartitioner(args);
        chosen.set(args.message, partition);
        return partition;
      },
    });
    const binary = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    const orders: Message[] = [
      { key: 'order-1', value: 'created', headers: { trace: 'a', kind: Buffer.from([0, 255]) } },
      { key: 'order-2', value: binary, timestamp: '1700000000123' },
      { key: 'order-1', value: 'paid', headers: { seen: ['first', 'second'] } },
      { key: 'order-3', value: null },
      { key: null, value: 'keyless' },
      { key: Buffer.from([0xff, 0x00, 0x7f]), value: Buffer.alloc(0) },
    ];
    const payments: Message[] = Array.from({ length: 12 }, (_, index) => ({
      key: `payment-${index % 5}`,
      value: `amount ${index}`,
      headers: { index: String(index) },
    }));

    const sentAt = Date.now();
    await producer.sendBatch({
      acks: -1,
      topicMessages: [
        { topic: 'orders', messages: orders.slice(0, 3) },
        { topic: 'payments', messages: payments.slice(0, 6) },
      ],
    });
    await producer.send({ topic: 'orders', acks: -1, messages: orders.slice(3) });
    await producer.send({ topic: 'payments', acks: -1, messages: payments.slice(6) });

    for (const [topic, messages, partitionCount] of [
      ['orders', orders, 4],
      ['payments', payments, 3],
    ] as const) {
      const expectedByPartition = new Map<number, Message[]>();
      for (const message of messages) {
        const partition = chosen.get(message);
        if (partition === undefined) throw new Error('kafkajs chose no partition');
        if (message.key != null)
          expect(partition).toBe(partitionForKey(Buffer.from(message.key), partitionCount));
        expectedByPartition.set(partition, [...(expectedByPartition.get(partition) ?? []), message]);
      }
      for (let partition = 0; partition < partitionCount; partition++) {
        const expected = expectedByPartition.get(partition) ?? [];
        const actual = recordsOf(log, { topic, partition });
        expect(actual.map((record) => record.offset)).toEqual(expected.map((_, offset) => offset));
        actual.forEach((record, index) => {
          const message = expected[index] as Message;
          expect(record.key).toEqual(message.key == null ? null : Buffer.from(message.key));
          expect(record.value).toEqual(message.value === null ? null : Buffer.from(message.value as Buffer));
          expect(record.headers).toEqual(headerList(message.headers));
          if (message.timestamp !== undefined) expect(record.timestamp).toBe(Number(message.timestamp));
          else expect(Math.abs(record.timestamp - sentAt)).toBeLessThan(60_000);
        });
      }
    }
  });

  it('reports the offsets it appended at to the producer', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const producer = await connectProducer(await startBroker(log));

    const first = await producer.send({ topic: 'orders', messages: [{ value: 'a' }, { value: 'b' }] });
    const second = await producer.send({ topic: 'orders', messages: [{ value: 'c' }] });

    expect(first).toMatchObject([{ topicName: 'orders', partition: 0, errorCode: 0, baseOffset: '0' }]);
    expect(second).toMatchObject([{ topicName: 'orders', partition: 0, errorCode: 0, baseOffset: '2' }]);
  });

  it('rejects a send to a topic the log lacks with UNKNOWN_TOPIC_OR_PARTITION once the retries are spent, and the producer goes on', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const producer = await connectProducer(await startBroker(log), {
      retry: { retries: 2, initialRetryTime: 20 },
    });

    const error = await producer
      .send({ topic: 'missing', acks: -1, messages: [{ value: 'x' }] })
      .catch((e) => e);

    expect(error).toMatchObject({
      name: 'KafkaJSNumberOfRetriesExceeded',
      retriable: false,
      retryCount: 2,
      message: 'This server does not host this topic-partition',
      cause: { name: 'KafkaJSProtocolError', type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true },
    });
    expect(log.partitionCount('missing')).toBeUndefined();
    await producer.send({ topic: 'orders', acks: -1, messages: [{ value: 'after' }] });
    expect(log.endOffset({ topic: 'orders', partition: 0 })).toBe(1);
  });

  it('creates an unknown topic when auto-creation is on and the producer allows it, and not when it does not', async () => {
    const log = new InMemoryLog({ topics: {} });
    const broker = await startBroker(log, { autoCreateTopics: true, autoCreatedPartitions: 2 });
    const refusing = await connectProducer(broker, { allowAutoTopicCreation: false });

    await expect(refusing.send({ topic: 'fresh', messages: [{ value: 'x' }] })).rejects.toMatchObject({
      cause: { type: 'UNKNOWN_TOPIC_OR_PARTITION' },
    });
    const allowing = await connectProducer(broker, { allowAutoTopicCreation: true });
    await allowing.send({ topic: 'fresh', messages: [{ key: 'k', value: 'x' }] });

    expect(log.partitionCount('fresh')).toBe(2);
    expect(recordsOf(log, { topic: 'fresh', partition: partitionForKey(Buffer.from('k'), 2) })).toHaveLength(
      1,
    );
  });

  it("refuses a batch larger than the topic's max message bytes with MESSAGE_TOO_LARGE, without retrying, and appends none of it", async () => {
    const log = new InMemoryLog({ topics: { orders: 1, payments: 1 } });
    const producer = await connectProducer(
      await startBroker(log, { topicMaxMessageBytes: { payments: 1000 } }),
    );

    const error = await producer
      .send({ topic: 'payments', acks: -1, messages: [{ value: 'small' }, { value: Buffer.alloc(1000) }] })
      .catch((e) => e);

    expect(error).toMatchObject({
      name: 'KafkaJSProtocolError',
      type: 'MESSAGE_TOO_LARGE',
      code: 10,
      retriable: false,
    });
    expect(error.cause).toBeUndefined();
    expect(log.endOffset({ topic: 'payments', partition: 0 })).toBe(0);
    // The override is per topic: the same batch fits the default limit.
    await producer.send({ topic: 'orders', acks: -1, messages: [{ value: Buffer.alloc(1000) }] });
    expect(log.endOffset({ topic: 'orders', partition: 0 })).toBe(1);
  });

  it('takes a batch of exactly 1048588 bytes by default, log overhead included, as Kafka does, and refuses one byte more', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const producer = await connectProducer(await startBroker(log));
    // One record, no key, no headers: 61 bytes of batch header and 11 of record framing around the value
    // (3-byte varints for the record length and the value length).
    const fitting = Buffer.alloc(1_048_588 - 72, 1);

    await producer.send({ topic: 'orders', messages: [{ value: fitting }] });
    const error = await producer
      .send({ topic: 'orders', messages: [{ value: Buffer.alloc(fitting.length + 1) }] })
      .catch((e) => e);

    const appended = recordsOf(log, { topic: 'orders', partition: 0 });
    // Buffer.equals: vitest's deep equality walks a megabyte byte by byte, for seconds.
    expect(appended.map((record) => record.value?.equals(fitting))).toEqual([true]);
    expect(error).toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
  });

  it('serves a second producer, and producers that reconnect after losing the connection or disconnecting', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const broker = await startBroker(log);
    const first = await connectProducer(broker);
    const second = await connectProducer(broker);

    await first.send({ topic: 'orders', messages: [{ value: 'first-1' }] });
    await second.send({ topic: 'orders', messages: [{ value: 'second-1' }] });
    await broker.dropConnections();
    await first.send({ topic: 'orders', messages: [{ value: 'first-2' }] });
    await second.disconnect();
    await second.connect();
    await second.send({ topic: 'orders', messages: [{ value: 'second-2' }] });

    expect(
      recordsOf(log, { topic: 'orders', partition: 0 }).map((record) => record.value?.toString()),
    ).toEqual(['first-1', 'second-1', 'first-2', 'second-2']);
    expect(broker.connectionCount()).toBe(2);
  });

  it('appends without answering when the producer asks for acks 0', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const producer = await connectProducer(await startBroker(log));

    expect(
      await producer.send({ topic: 'orders', acks: 0, messages: [{ value: 'unacknowledged' }] }),
    ).toEqual([]);

    await expect.poll(() => log.endOffset({ topic: 'orders', partition: 0 })).toBe(1);
  });

  it('refuses a compressed batch with UNSUPPORTED_COMPRESSION_TYPE and an idempotent producer at connect', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const broker = await startBroker(log);
    const producer = await connectProducer(broker);

    await expect(
      producer.send({ topic: 'orders', compression: CompressionTypes.GZIP, messages: [{ value: 'zipped' }] }),
    ).rejects.toMatchObject({ type: 'UNSUPPORTED_COMPRESSION_TYPE', retriable: false });
    // InitProducerId is not advertised, so kafkajs refuses before sending anything.
    await expect(connectProducer(broker, { idempotent: true })).rejects.toMatchObject({
      name: 'KafkaJSServerDoesNotSupportApiKey',
      retriable: false,
    });
    expect(log.endOffset({ topic: 'orders', partition: 0 })).toBe(0);
  });

  it('ends its connections and stops listening when closed', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const broker = await startBroker(log);
    const producer = await connectProducer(broker, { retry: { retries: 0 } });
    await producer.send({ topic: 'orders', messages: [{ value: 'before' }] });
    expect(broker.connectionCount()).toBe(1);

    await broker.close();

    expect(broker.connectionCount()).toBe(0);
    expect(await accepts(broker.bootstrapServers)).toBe(false);
    await expect(producer.send({ topic: 'orders', messages: [{ value: 'after' }] })).rejects.toThrow();
  });
});

function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
