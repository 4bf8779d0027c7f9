/** A failed batch's id and the reading of an on-failure record: pure, no I/O. */
import { describe, expect, it } from 'vitest';
import { buildMskEvent } from '../../../local/esm/msk-event.js';
import { buildOnFailureRecord, s3ObjectKey } from '../../../local/esm/on-failure-destination.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { resolveBatchId, shortIds } from '../../../operator/failed-batches/batch-ids.js';
import { parseFailedBatch } from '../../../operator/failed-batches/failed-batch.js';

const objectAt = (key: string) => ({ key, sizeBytes: 1, lastModifiedMs: 0 });
const at = new Date(Date.UTC(2026, 11, 1, 2, 3, 4));

describe('shortIds', () => {
  it('gives each name its last 8 characters, more where two names share them', () => {
    const ids = shortIds([
      '2026-12-01T02.03.04-aaaa-11112222',
      '2026-12-01T02.03.05-bbbb-11112222',
      'x-0badcafe',
    ]);
    expect([...ids.values()]).toEqual(['a-11112222', 'b-11112222', '0badcafe']);
  });
});

describe('resolveBatchId', () => {
  const keys = [s3ObjectKey('u', 'orders-0', at), s3ObjectKey('u', 'orders-1', at)];
  const objects = keys.map(objectAt);

  it('takes the id list prints, any longer ending, the whole name or the whole key', () => {
    const key = keys[0] ?? '';
    const name = key.split('/').at(-1) ?? '';
    for (const id of [name.slice(-8), name.slice(-20), name, key]) {
      expect(resolveBatchId(id, objects, 'here').key).toBe(key);
    }
  });

  it('refuses an id that names no batch, or several, in one line', () => {
    expect(() => resolveBatchId('nope1234', objects, 'folder f')).toThrow(
      new UserError('no failed batch nope1234 in folder f: `msk-inbox failed-batches list` prints the ids'),
    );
    const twins = ['a/x-deadbeef', 'a/y-deadbeef'].map(objectAt);
    expect(() => resolveBatchId('deadbeef', twins, 'here')).toThrow(
      /^deadbeef names 2 failed batches \(x-deadbeef, y-deadbeef\.\.\.\): give more of the id$/,
    );
    // Too short to be meant as an id: it would match by chance.
    expect(() => resolveBatchId('ef', twins, 'here')).toThrow(/^no failed batch ef/);
  });
});

describe('parseFailedBatch', () => {
  const event = buildMskEvent(
    { eventSource: 'aws:kafka', eventSourceArn: 'arn:aws:kafka:x', bootstrapServers: 'k:9092' },
    [
      {
        topic: 'orders',
        partition: 1,
        offset: 8,
        timestamp: 1,
        timestampType: 'CREATE_TIME',
        key: null,
        value: Buffer.from('{}'),
        headers: [],
      },
      {
        topic: 'orders',
        partition: 1,
        offset: 7,
        timestamp: 1,
        timestampType: 'CREATE_TIME',
        key: null,
        value: null,
        headers: [],
      },
    ],
  );
  const record = buildOnFailureRecord({
    condition: 'RetryAttemptsExhausted',
    event,
    requestId: 'r',
    functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:f',
    approximateInvokeCount: 11,
    functionError: false,
    now: at,
  });

  it('reads the S3 destination record: metadata, the envelope, each partition in offset order', () => {
    const parsed = parseFailedBatch(objectAt('aws/lambda/u/orders-1/2026/12/01/n-1'), JSON.stringify(record));
    expect(parsed.ok && parsed.batch).toMatchObject({
      name: 'n-1',
      timestampMs: at.getTime(),
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 11,
      functionError: undefined,
      recordCount: 2,
      payloadBytes: record.KafkaBatchInfo.payloadSize,
      envelope: { eventSource: 'aws:kafka', eventSourceArn: 'arn:aws:kafka:x', bootstrapServers: 'k:9092' },
      partitions: [{ key: 'orders-1', firstOffset: 7, lastOffset: 8 }],
    });
    expect(parsed.ok && parsed.batch.partitions[0]?.records.map((r) => r.offset)).toEqual([7, 8]);
  });

  it('says why an object is not an on-failure record', () => {
    const why = (text: string) => {
      const parsed = parseFailedBatch(objectAt('k'), text);
      return parsed.ok ? 'parsed' : parsed.why;
    };
    expect(why('not json')).toBe('not JSON');
    expect(why('{"version":"1.0"}')).toBe('no requestContext, KafkaBatchInfo or timestamp');
    expect(why(JSON.stringify({ ...record, payload: undefined }))).toBe('no payload (the event)');
    expect(why(JSON.stringify({ ...record, payload: '{"Records":[]}' }))).toBe(
      'its payload is not a Kafka event',
    );
    expect(why(JSON.stringify({ ...record, payload: '{"records":{"orders-1":[{"offset":"7"}]}}' }))).toBe(
      "its payload's records of orders-1 are not Kafka records",
    );
  });
});
