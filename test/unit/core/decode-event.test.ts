import { describe, expect, it } from 'vitest';
import { decodeEvent, splitPartitionKey } from '../../../lambdas/core/decode-event.js';
import { InvalidEventError } from '../../../lambdas/core/errors.js';
import { loadEvent } from '../../support/fixtures.js';
import { kafkaEvent, kafkaRecord } from '../../support/kafka-events.js';

describe('decodeEvent', () => {
  it('decodes base64 key and value and signed-byte headers of an MSK event', () => {
    const [first] = decodeEvent(loadEvent('msk-event'));
    const record = first?.records[0];

    expect(first?.partitionKey).toBe('order-events-0');
    expect(record?.key?.toString()).toBe('order-100');
    expect(record?.header('event_id')?.toString()).toBe('evt-1');
    // -61, -87 are the signed bytes of "é" in UTF-8.
    expect(record?.header('trace')?.toString('utf8')).toBe('é');
    expect(record?.json).toMatchObject({ ok: true, value: { event_id: 'evt-1', amount: 1250 } });
    expect(record?.coordinates).toBe('order-events-0@15');
  });

  it('keeps null key and value as null when a record is a tombstone', () => {
    const record = decodeEvent(loadEvent('msk-event'))[0]?.records[1];

    expect(record?.key).toBeNull();
    expect(record?.value).toBeNull();
    expect(record?.problem).toBeUndefined();
    expect(record?.json.ok).toBe(false);
  });

  it('treats absent key, value and headers like null', () => {
    const { key: _key, value: _value, headers: _headers, ...bare } = kafkaRecord({ offset: 3 });
    const record = decodeEvent({ eventSource: 'aws:kafka', records: { 'orders-0': [bare] } })[0]?.records[0];

    expect(record?.problem).toBeUndefined();
    expect(record?.value).toBeNull();
    expect(record?.headers).toEqual([]);
  });

  it('splits topic names that contain dashes on the last dash', () => {
    expect(splitPartitionKey('my-order-topic-12')).toEqual({ topic: 'my-order-topic', partition: 12 });
    expect(splitPartitionKey('nodash')).toEqual({ topic: 'nodash', partition: -1 });
  });

  it('sorts records of a partition by offset when they arrive out of order', () => {
    const event = kafkaEvent([{ offset: 9 }, { offset: 7 }, { offset: 8 }]);

    expect(decodeEvent(event)[0]?.records.map((r) => r.offset)).toEqual([7, 8, 9]);
  });

  it('gives a malformed record a problem naming kinds, never content, instead of throwing', () => {
    const event = {
      eventSource: 'aws:kafka',
      records: {
        'orders-0': [
          { ...kafkaRecord({ offset: 1 }), value: 'a!b' },
          { ...kafkaRecord({ offset: 2 }), headers: [{ h: [1, 999] }] },
          { ...kafkaRecord({ offset: 3 }), headers: 'nope' },
          { ...kafkaRecord({ offset: 4 }), key: 42 },
          'not a record',
        ],
      },
    };

    const records = decodeEvent(event)[0]?.records ?? [];

    expect(records.map((r) => r.problem)).toEqual([
      'value is not valid base64',
      'header 0 is not an array of bytes',
      'headers is a string of 4 characters, not an array',
      'key is a number, not a base64 string',
      'record is a string of 12 characters, not an object; offset is missing, not a non-negative integer',
    ]);
    expect(records[4]?.offset).toBeUndefined();
    expect(records[4]?.coordinates).toBe('orders-0#4');
  });

  it('throws an InvalidEventError naming the problem when the envelope is unusable', () => {
    expect(() => decodeEvent(null)).toThrow(InvalidEventError);
    expect(() => decodeEvent([])).toThrow(/must be an object, got an array/);
    expect(() => decodeEvent({ records: 'x' })).toThrow(/no "records" map/);
    expect(() => decodeEvent({ records: { 'orders-0': {} } })).toThrow(
      /records\["orders-0"\] must be an array/,
    );
  });

  it('hashes equal values equally, other values and tombstones differently', () => {
    const [a, b, c, d] =
      decodeEvent(
        kafkaEvent([
          { offset: 1, value: { x: 1 } },
          { offset: 2, value: { x: 1 } },
          { offset: 3, value: { x: 2 } },
          { offset: 4, value: null },
        ]),
      )[0]?.records ?? [];

    expect(a?.payloadHash).toBe(b?.payloadHash);
    expect(a?.payloadHash).not.toBe(c?.payloadHash);
    expect(d?.payloadHash).toBe('null');
  });

  it('reports invalid UTF-8 in a value as a JSON parse failure', () => {
    const record = decodeEvent({
      records: {
        'orders-0': [{ ...kafkaRecord({ offset: 1 }), value: Buffer.from([0xff, 0xfe]).toString('base64') }],
      },
    })[0]?.records[0];

    expect(record?.json).toEqual({ ok: false, error: 'value is not UTF-8' });
  });

  it('says where JSON stops, and quotes none of the value, when the value is not JSON', () => {
    const secret = 'card 4111 1111 1111 1111';
    const records = decodeEvent({
      records: {
        'orders-0': [
          { ...kafkaRecord({ offset: 1 }), value: Buffer.from(`{"a": ${secret}}`).toString('base64') },
          { ...kafkaRecord({ offset: 2 }), value: Buffer.from(`{"a": "${secret}"`).toString('base64') },
          { ...kafkaRecord({ offset: 3 }), value: Buffer.from(`{"a": "${secret}"}}`).toString('base64') },
        ],
      },
    })[0]?.records;

    const errors = records?.map((r) => (r.json.ok ? 'parsed' : r.json.error)) ?? [];
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error).toMatch(
        /^value is not JSON \((an unexpected character|it ends early|error at character \d+)\)$/,
      );
      expect(error).not.toContain('4111');
    }
  });
});
