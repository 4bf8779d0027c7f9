import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import {
  DEFAULT_DEDUP_KEY_POLICY,
  type DedupKeyPolicy,
  deriveDedupKey,
} from '../../../lambdas/core/dedup-key.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';

function keyOf(spec: Omit<RecordSpec, 'offset'>, policy: DedupKeyPolicy = DEFAULT_DEDUP_KEY_POLICY) {
  const record = decodeEvent(kafkaEvent([{ offset: 5, ...spec }]))[0]?.records[0];
  if (!record) throw new Error('no record');
  return deriveDedupKey(record, policy);
}

describe('deriveDedupKey', () => {
  it('takes the event_id header first, decoded as UTF-8', () => {
    expect(keyOf({ headers: { event_id: 'évt-1' }, value: { event_id: 'from-body' } })).toEqual({
      ok: true,
      key: 'évt-1',
      from: 'header',
    });
  });

  it('falls back to the top-level event_id of the JSON value when there is no header', () => {
    expect(keyOf({ value: { event_id: 'e-9' } })).toEqual({ ok: true, key: 'e-9', from: 'field' });
  });

  it('uses the configured header and field names', () => {
    const policy = { header: 'x-id', field: 'id', fallback: 'none' } as const;

    expect(keyOf({ headers: { 'x-id': 'h' } }, policy)).toMatchObject({ key: 'h' });
    expect(keyOf({ value: { id: 'f', event_id: 'ignored' } }, policy)).toMatchObject({ key: 'f' });
  });

  it('says missing-event-id when neither header nor field is there and no fallback is set', () => {
    expect(keyOf({ value: { event_id: '' } })).toMatchObject({ ok: false, reason: 'missing-event-id' });
    expect(keyOf({ value: [1, 2] })).toMatchObject({ ok: false, reason: 'missing-event-id' });
  });

  it("gives the value's own failure when there is no header and the value cannot be read", () => {
    // The reason a header would not change: the value's problem, never a missing id.
    expect(keyOf({ value: 'not json' })).toEqual({
      ok: false,
      reason: 'invalid-event',
      message: 'value is not JSON (an unexpected character)',
    });
    expect(keyOf({ value: null })).toEqual({ ok: false, reason: 'invalid-event', message: 'value is null' });
    // With the coordinates fallback the record has a key; its effect then meets the value's failure.
    const policy = { ...DEFAULT_DEDUP_KEY_POLICY, fallback: 'coordinates' } as const;
    expect(keyOf({ value: 'not json' }, policy)).toMatchObject({ ok: true, from: 'coordinates' });
  });

  it('says invalid-event-id when the id is not a string, not UTF-8 or too long', () => {
    expect(keyOf({ value: { event_id: 42 } })).toMatchObject({ ok: false, reason: 'invalid-event-id' });
    expect(keyOf({ value: { event_id: 'x'.repeat(1025) } })).toMatchObject({
      ok: false,
      reason: 'invalid-event-id',
    });
    const record = decodeEvent({
      records: {
        'orders-0': [
          {
            topic: 'orders',
            partition: 0,
            offset: 1,
            timestamp: 0,
            timestampType: 'CREATE_TIME',
            headers: [{ event_id: [-1, -2] }],
          },
        ],
      },
    })[0]?.records[0];
    expect(record && deriveDedupKey(record, DEFAULT_DEDUP_KEY_POLICY)).toMatchObject({
      reason: 'invalid-event-id',
    });
  });

  it('keys by the record coordinates only when the coordinates fallback is enabled', () => {
    const policy = { ...DEFAULT_DEDUP_KEY_POLICY, fallback: 'coordinates' } as const;

    expect(keyOf({ topic: 'orders-eu', partition: 2, value: 'plain' }, policy)).toEqual({
      ok: true,
      key: 'kafka:orders-eu-2@5',
      from: 'coordinates',
    });
  });
});
