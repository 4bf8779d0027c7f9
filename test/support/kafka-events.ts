/** Builds Kafka events as Lambda's ESM delivers them (base64 key/value, signed-byte headers). */
import type { KafkaEvent, KafkaEventRecord } from '../../lambdas/core/kafka-event.js';

export interface RecordSpec {
  readonly topic?: string;
  readonly partition?: number;
  readonly offset: number;
  readonly key?: string | null;
  /** Bytes are sent as they are (Avro, Protobuf); an object as JSON; a string as UTF-8; null as a tombstone. */
  readonly value?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timestamp?: number;
}

export function signedBytes(text: string): number[] {
  return Array.from(new Int8Array(Buffer.from(text, 'utf8')));
}

export function kafkaRecord(spec: RecordSpec): KafkaEventRecord {
  const value =
    spec.value === null || spec.value === undefined
      ? null
      : spec.value instanceof Uint8Array
        ? Buffer.from(spec.value).toString('base64')
        : Buffer.from(typeof spec.value === 'string' ? spec.value : JSON.stringify(spec.value)).toString(
            'base64',
          );
  return {
    topic: spec.topic ?? 'orders',
    partition: spec.partition ?? 0,
    offset: spec.offset,
    timestamp: spec.timestamp ?? 1_700_000_000_000 + spec.offset,
    timestampType: 'CREATE_TIME',
    key: spec.key === undefined || spec.key === null ? null : Buffer.from(spec.key).toString('base64'),
    value,
    headers: Object.entries(spec.headers ?? {}).map(([name, text]) => ({ [name]: signedBytes(text) })),
  };
}

/** Groups records under their "topic-partition" keys, in the order given. */
export function kafkaEvent(specs: readonly RecordSpec[], source: 'msk' | 'self-managed' = 'msk'): KafkaEvent {
  const records: Record<string, KafkaEventRecord[]> = {};
  for (const spec of specs) {
    const record = kafkaRecord(spec);
    const partitionKey = `${record.topic}-${record.partition}`;
    records[partitionKey] ??= [];
    records[partitionKey].push(record);
  }
  return source === 'msk'
    ? {
        eventSource: 'aws:kafka',
        eventSourceArn:
          'arn:aws:kafka:us-east-1:123456789012:cluster/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2',
        bootstrapServers:
          'b-1.demo.kafka.us-east-1.amazonaws.com:9092,b-2.demo.kafka.us-east-1.amazonaws.com:9092',
        records,
      }
    : { eventSource: 'SelfManagedKafka', bootstrapServers: 'kafka-1:9092,kafka-2:9092', records };
}

export interface OrderSpec {
  readonly eventId: string;
  readonly orderId?: string;
  readonly accountId?: string;
  readonly amount?: number;
}

/** An OrderPlaced record with the event_id header producers set. */
export function orderRecord(offset: number, order: OrderSpec, partition = 0, topic = 'orders'): RecordSpec {
  return {
    topic,
    partition,
    offset,
    key: order.orderId ?? `order-${order.eventId}`,
    headers: { event_id: order.eventId },
    value: {
      event_id: order.eventId,
      type: 'OrderPlaced',
      order_id: order.orderId ?? `order-${order.eventId}`,
      account_id: order.accountId ?? 'acct-1',
      amount: order.amount ?? 100,
    },
  };
}
