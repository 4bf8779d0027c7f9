import { describe, expect, it } from 'vitest';
import { compileKafkaFilters, filterProblems, type KafkaRecordFilter } from '../../../lib/kafka-filters.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe('Kafka filters (on value, as Lambda decodes it)', () => {
  it('a JSON object value is matched by field patterns', () => {
    const delivered = compileKafkaFilters([{ value: { device_ID: [{ prefix: 'AB' }] } }]);
    expect(delivered(json({ device_ID: 'AB1234' }))).toBe(true);
    expect(delivered(json({ device_ID: 'CD1234' }))).toBe(false);
    expect(delivered(json({ other: 1 }))).toBe(false);
  });

  it('a plain string value is matched by rules on value itself', () => {
    const delivered = compileKafkaFilters([{ value: [{ 'anything-but': ['error'] }] }]);
    expect(delivered(Buffer.from('all good'))).toBe(true);
    expect(delivered(Buffer.from('error'))).toBe(false);
  });

  it('a record is delivered when it matches any filter', () => {
    const delivered = compileKafkaFilters([{ value: { type: ['a'] } }, { value: { type: ['b'] } }]);
    expect(delivered(json({ type: 'b' }))).toBe(true);
    expect(delivered(json({ type: 'c' }))).toBe(false);
  });

  it('a value that does not fit the filter form, or is not UTF-8, passes: Kafka filters have no metadata to fall back on', () => {
    const onFields = compileKafkaFilters([{ value: { type: ['a'] } }]);
    expect(onFields(Buffer.from('not json'))).toBe(true);
    expect(onFields(Buffer.from([0xff, 0xfe, 0x00]))).toBe(true);
    const onString = compileKafkaFilters([{ value: ['exact'] }]);
    expect(onString(json({ type: 'a' }))).toBe(true);
  });

  it('a record without value (a tombstone) matches only patterns that ask for missing fields', () => {
    expect(compileKafkaFilters([{ value: { type: ['a'] } }])(null)).toBe(false);
    expect(compileKafkaFilters([{ value: [{ 'anything-but': ['error'] }] }])(null)).toBe(false);
    expect(compileKafkaFilters([{ value: [{ exists: false }] }])(null)).toBe(true);
  });

  it('delivers tombstones with the field filter docs/aws-facts.md#event-filtering suggests, and no other value it filters', () => {
    const matches = compileKafkaFilters([
      { value: { type: ['order.placed'] } },
      { value: { event_id: [{ exists: false }] } },
    ]);
    expect(matches(null)).toBe(true);
    expect(matches(json({ type: 'order.placed', event_id: 'e1' }))).toBe(true);
    expect(matches(json({ type: 'order.cancelled', event_id: 'e2' }))).toBe(false);
  });
});

describe('filterProblems (synth)', () => {
  it('accepts value patterns and refuses other keys, empty lists, rules Lambda lacks and long patterns', () => {
    expect(filterProblems([{ value: { type: ['a'] } }])).toEqual([]);
    expect(filterProblems([])).toEqual([expect.stringMatching(/filters is empty/)]);
    expect(filterProblems([{ value: ['x'], key: ['k'] } as KafkaRecordFilter])).toEqual([
      'filters[0] names key: Kafka mappings filter on "value" only',
    ]);
    expect(filterProblems([{ value: { a: [{ wildcard: '*' }] } }])).toEqual([
      expect.stringMatching(/^filters\[0\]: value\.a\[0\]: "wildcard" is not in Lambda's filter rules/),
    ]);
    const long = { value: { a: ['x'.repeat(5000)] } };
    expect(filterProblems([long])).toEqual([
      expect.stringMatching(/filters\[0\] is \d+ characters as JSON: Lambda takes at most 4096/),
    ]);
  });
});
