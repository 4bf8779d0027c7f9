import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { OPERATOR_ATTRIBUTES, OPERATOR_STATUS, replayingRowKey } from '../../../lambdas/core/inbox-rows.js';
import {
  QUARANTINE_LIMITS,
  quarantineItem,
  quarantineKeyOf,
  readQuarantineRow,
} from '../../../lambdas/core/quarantine-row.js';
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
      {
        coordinates: quarantineKeyOf(record),
        reason: huge,
        message: huge,
        record: record.raw,
        // The longest key the engine derives (MAX_DEDUP_KEY_BYTES), all of it 3-byte characters.
        dedupKey: '€'.repeat(341),
      },
      1,
      604_800,
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

describe('a quarantine row, written and read through one type', () => {
  const record = decoded('orders-3', kafkaRecord({ offset: 41, value: '{"event_id":"e-1"}' }));
  const entry = {
    coordinates: quarantineKeyOf(record),
    reason: 'invalid-event',
    message: 'amount: must be a positive whole number of cents',
    record: record.raw,
    dedupKey: 'e-1',
  };

  it('reads back what the engine wrote, with the key and window the consumer had', () => {
    const item = quarantineItem('orders', entry, 1_700_000_000_000, 86_400);
    const row = readQuarantineRow('orders', item);
    expect(row).toMatchObject({
      id: 'orders-3@41',
      parked: false,
      status: 'QUARANTINED',
      reason: 'invalid-event',
      quarantinedAt: 1_700_000_000_000,
      consumer: { dedupKey: 'e-1', dedupTtlSeconds: 86_400 },
      replayAttempts: 0,
    });
    expect(row.record).toEqual(item.record);
  });

  it('says the consumer derived no key where it derived none', () => {
    const item = quarantineItem('orders', { ...entry, dedupKey: undefined }, 1, 604_800);
    expect(readQuarantineRow('orders', item).consumer).toEqual({
      dedupKey: undefined,
      dedupTtlSeconds: 604_800,
    });
  });

  it('reads a row written before the consumer kept its key (0.1.0) as knowing nothing of it', () => {
    const {
      dedup_key: _key,
      dedup_ttl_seconds: _ttl,
      ...older
    } = quarantineItem('orders', entry, 1, 604_800);
    expect(readQuarantineRow('orders', older).consumer).toBeUndefined();
  });

  it('reads a row set aside by a replay, and one an operator resolved, out of the index', () => {
    const { quarantine_consumer: _c, quarantined_at: at, ...rest } = quarantineItem('orders', entry, 5, 60);
    const resolved = {
      ...rest,
      pk: replayingRowKey('orders', 'orders-3@41'),
      status: OPERATOR_STATUS.resolved,
      [OPERATOR_ATTRIBUTES.quarantinedSince]: at,
      [OPERATOR_ATTRIBUTES.replayAttempts]: 2,
    };
    expect(readQuarantineRow('orders', resolved)).toMatchObject({
      id: 'orders-3@41',
      parked: true,
      status: 'RESOLVED',
      quarantinedAt: 5,
      replayAttempts: 2,
    });
  });
});
