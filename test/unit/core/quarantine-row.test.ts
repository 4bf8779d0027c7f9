import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { QUARANTINE_LIMITS, quarantineItem, quarantineKeyOf } from '../../../lambdas/core/quarantine-row.js';
import { kafkaRecord } from '../../support/kafka-events.js';

function decoded(partitionKey: string, raw: unknown) {
  const record = decodeEvent({ records: { [partitionKey]: [raw] } })[0]?.records[0];
  if (!record) throw new Error('no record');
  return record;
}

describe('quarantineKeyOf', () => {
  it('is the coordinates as they came when they are short and well-formed', () => {
    expect(quarantineKeyOf(decoded('orders-0', kafkaRecord({ offset: 7 })))).toBe('orders-0@7');
  });

  it('differs for two offset-less records at the same position, and repeats for the same one', () => {
    const a = decoded('orders-0', { ...kafkaRecord({ offset: 0, value: 'a' }), offset: 'x' });
    const b = decoded('orders-0', { ...kafkaRecord({ offset: 0, value: 'b' }), offset: 'x' });
    const aAgain = decoded('orders-0', { ...kafkaRecord({ offset: 0, value: 'a' }), offset: 'x' });
    expect(quarantineKeyOf(a)).not.toBe(quarantineKeyOf(b));
    expect(quarantineKeyOf(a)).toBe(quarantineKeyOf(aAgain));
    expect(quarantineKeyOf(a)).toMatch(/^orders-0#raw-[0-9a-f]{64}$/);
  });

  it('hashes a key part that is too long or ill-formed, keeping it distinct and bounded', () => {
    const long = quarantineKeyOf(decoded(`${'t'.repeat(3_000)}-0`, kafkaRecord({ offset: 1 })));
    const ill = [
      quarantineKeyOf(decoded('t\ud800-0', kafkaRecord({ offset: 1 }))),
      quarantineKeyOf(decoded('t\udc00-0', kafkaRecord({ offset: 1 }))),
    ];
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(QUARANTINE_LIMITS.keyBytes);
    expect(ill[0]).not.toBe(ill[1]);
    expect(ill.every((key) => key.isWellFormed())).toBe(true);
  });
});

describe('quarantineItem', () => {
  it('stays under 400 KB whatever the record, naming every cut field', () => {
    const huge = '€'.repeat(1_000_000);
    const record = decoded('orders-0', {
      topic: huge,
      partition: 0,
      offset: huge,
      // A producer's nanoseconds: no number the SDK can write exactly.
      timestamp: 1.7e18,
      timestampType: huge,
      key: huge,
      value: huge,
      headers: [{ [huge]: huge }],
    });
    const item = quarantineItem(
      'consumer',
      { coordinates: quarantineKeyOf(record), reason: huge, message: huge, record: record.raw },
      1,
    );

    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(400 * 1024);
    const kept = item.record as Record<string, unknown>;
    expect(kept.cut).toEqual(['topic', 'timestampType', 'key', 'value', 'headers', 'offset_as_sent']);
    expect(kept.timestamp).toBeNull();
    expect(kept.timestamp_as_sent).toBe('1700000000000000000');
    // Every number left is one DynamoDB and the SDK take exactly.
    expect(Object.values(kept).filter((v) => typeof v === 'number' && !Number.isSafeInteger(v))).toEqual([]);
  });
});
