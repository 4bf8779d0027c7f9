import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../../lambdas/core/quarantine-row.js';
import { parseSince } from '../../../operator/commands/quarantine-list.js';
import { dedupKeyOf, readableRecord, replayEventOf } from '../../../operator/quarantined-record.js';
import { tableText } from '../../../operator/table-text.js';

const stored: StoredRecord = {
  topic: 'orders',
  partition: 3,
  offset: 72,
  timestamp: 1_700_000_000_000,
  timestampType: 'CREATE_TIME',
  key: Buffer.from('acct-1').toString('base64'),
  value: Buffer.from('{"event_id":"e1"}').toString('base64'),
  headers: JSON.stringify([{ event_id: [101, 49] }, { blob: [-1, 0] }]),
  value_truncated: false,
  value_chars: 24,
};

describe('replayEventOf', () => {
  it('sends the record as it came, under its own records map key and offset', () => {
    const rebuilt = replayEventOf('orders-3@72', stored);
    expect(rebuilt.ok && rebuilt.event.records).toEqual({
      'orders-3': [
        {
          topic: 'orders',
          partition: 3,
          offset: 72,
          timestamp: 1_700_000_000_000,
          timestampType: 'CREATE_TIME',
          key: stored.key,
          value: stored.value,
          headers: [{ event_id: [101, 49] }, { blob: [-1, 0] }],
        },
      ],
    });
    expect(rebuilt.ok && rebuilt.record.coordinates).toBe('orders-3@72');
  });

  it('refuses what it cannot send as it came: a cut field, a malformed record, hashed coordinates', () => {
    expect(replayEventOf('orders-3@72', { ...stored, cut: ['value'] })).toEqual({
      ok: false,
      why: 'it was stored cut to fit (value)',
    });
    expect(replayEventOf('orders-3@72', { ...stored, as_json: ['key'] }).ok).toBe(false);
    expect(replayEventOf('orders-3#raw-abc', { ...stored, offset: null }).ok).toBe(false);
    expect(replayEventOf('orders-3@72', { ...stored, headers: '{"not":"a list"}' }).ok).toBe(false);
  });
});

describe('dedupKeyOf', () => {
  const coordinates = { header: 'event_id', field: 'event_id', fallback: 'coordinates' } as const;
  const keyOf = (record: StoredRecord) => {
    const rebuilt = replayEventOf('orders-3@72', record);
    return rebuilt.ok ? dedupKeyOf(rebuilt.record, coordinates) : 'not rebuilt';
  };
  // An Avro value (zigzag length, then the UTF-8 of "e1"): not JSON. An Avro consumer reads event_id "e1"
  // from it; the tool, reading JSON only, would fall back to the coordinates: a key the engine never used.
  const avro = Buffer.from([4, 101, 49]).toString('base64');

  it('derives no key for a value that is not JSON but a header: the consumer may have read its field', () => {
    expect(keyOf({ ...stored, value: avro, headers: '[]' })).toBeUndefined();
    expect(keyOf({ ...stored, value: avro })).toBe('e1');
  });

  it('falls back to the coordinates for a JSON value without an id, as the consumer does', () => {
    const noId = Buffer.from('{"amount":5}').toString('base64');
    expect(keyOf({ ...stored, value: noId, headers: '[]' })).toBe('kafka:orders-3@72');
    expect(keyOf({ ...stored, headers: '[]' })).toBe('e1');
  });
});

describe('readableRecord', () => {
  it('shows text where the bytes are UTF-8, base64 where not, and JSON values as JSON', () => {
    const readable = readableRecord(stored);
    expect(readable.key).toEqual({ text: 'acct-1' });
    expect(readable.headers).toEqual([
      { name: 'event_id', text: 'e1' },
      { name: 'blob', base64: Buffer.from([0xff, 0]).toString('base64') },
    ]);
    expect(readable.value).toEqual({ json: { event_id: 'e1' } });
  });

  it('never parses a truncated value: it is a prefix, shown as base64', () => {
    const readable = readableRecord({ ...stored, value_truncated: true, value_chars: 400_000 });
    expect(readable.value).toEqual({ base64: stored.value });
    expect(readable.valueBytes).toBe(300_000);
  });
});

describe('parseSince', () => {
  const now = Date.UTC(2026, 10, 30, 23, 0, 0);
  it('takes an age back from now or an ISO time, and refuses anything else in one line', () => {
    expect(parseSince('30m', now)).toBe(now - 30 * 60_000);
    expect(parseSince('2d', now)).toBe(now - 2 * 86_400_000);
    expect(parseSince('2026-11-30T22:00Z', now)).toBe(Date.UTC(2026, 10, 30, 22, 0, 0));
    expect(() => parseSince('yesterday', now)).toThrow(
      '--since yesterday is neither an age (30m, 6h, 2d) nor an ISO time',
    );
  });
});

describe('tableText', () => {
  it('pads each column to its widest cell and leaves the last ragged', () => {
    expect(
      tableText(
        ['ID', 'REASON'],
        [
          ['orders-0@1', 'x'],
          ['a', 'longer reason'],
        ],
      ),
    ).toBe('ID          REASON\norders-0@1  x\na           longer reason');
  });
});
