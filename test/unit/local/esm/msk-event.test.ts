import { describe, expect, it } from 'vitest';
import { buildMskEvent, toSignedBytes } from '../../../../local/esm/msk-event.js';
import type { SourceRecord } from '../../../../local/esm/record-source.js';

const record = (fields: Partial<SourceRecord>): SourceRecord => ({
  topic: 'orders',
  partition: 0,
  offset: 0,
  timestamp: 1545084650987,
  timestampType: 'CREATE_TIME',
  key: null,
  value: null,
  headers: [],
  ...fields,
});

describe('buildMskEvent', () => {
  it('shapes records as Lambda does when given raw records of several partitions', () => {
    const event = buildMskEvent(
      {
        eventSource: 'aws:kafka',
        eventSourceArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/demo/x',
        bootstrapServers: 'b-1:9092,b-2:9092',
      },
      [
        record({ partition: 1, offset: 7, key: Buffer.from('order-100'), value: Buffer.from('{"a":1}') }),
        record({ offset: 16, headers: [{ key: 'event_id', value: Buffer.from('evt-1') }] }),
        record({ offset: 15 }),
      ],
    );
    expect(event).toEqual({
      eventSource: 'aws:kafka',
      eventSourceArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/demo/x',
      bootstrapServers: 'b-1:9092,b-2:9092',
      records: {
        'orders-1': [
          {
            topic: 'orders',
            partition: 1,
            offset: 7,
            timestamp: 1545084650987,
            timestampType: 'CREATE_TIME',
            key: 'b3JkZXItMTAw',
            value: 'eyJhIjoxfQ==',
            headers: [],
          },
        ],
        'orders-0': [
          expect.objectContaining({ offset: 15, key: null, value: null }),
          expect.objectContaining({ offset: 16, headers: [{ event_id: [101, 118, 116, 45, 49] }] }),
        ],
      },
    });
  });

  it('leaves eventSourceArn out when the source is self-managed Kafka', () => {
    const event = buildMskEvent({ eventSource: 'SelfManagedKafka', bootstrapServers: 'k:9092' }, [
      record({}),
    ]);
    expect(event).not.toHaveProperty('eventSourceArn');
    expect(event.eventSource).toBe('SelfManagedKafka');
  });
});

describe('toSignedBytes', () => {
  it('gives Java signed bytes when a byte is above 127', () => {
    expect(toSignedBytes(Buffer.from([0, 127, 128, 255]))).toEqual([0, 127, -128, -1]);
    expect(Buffer.from(toSignedBytes(Buffer.from('é€')))).toEqual(Buffer.from('é€'));
  });
});
