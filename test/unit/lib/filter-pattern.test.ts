import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePattern, patternProblems } from '../../../lib/filter-pattern.js';

/** Whether `pattern` matches `record`. */
function matches(pattern: unknown, record: unknown): boolean {
  return compilePattern(pattern)(record);
}

describe('Lambda filter patterns: matching', () => {
  it('exact values: strings, numbers, booleans, null and the empty string, any of a list', () => {
    expect(matches({ a: ['x', 'y'] }, { a: 'y' })).toBe(true);
    expect(matches({ a: ['x'] }, { a: 'X' })).toBe(false);
    expect(matches({ a: [5] }, { a: 5 })).toBe(true);
    expect(matches({ a: [5] }, { a: '5' })).toBe(false);
    expect(matches({ a: [true] }, { a: true })).toBe(true);
    expect(matches({ a: [null] }, { a: null })).toBe(true);
    expect(matches({ a: [null] }, {})).toBe(false);
    expect(matches({ a: [''] }, { a: '' })).toBe(true);
  });

  it('every field must match (and), nested objects included', () => {
    const pattern = { type: ['order'], order: { currency: ['EUR'] } };
    expect(matches(pattern, { type: 'order', order: { currency: 'EUR' } })).toBe(true);
    expect(matches(pattern, { type: 'order', order: { currency: 'USD' } })).toBe(false);
    expect(matches(pattern, { type: 'refund', order: { currency: 'EUR' } })).toBe(false);
    expect(matches(pattern, { type: 'order' })).toBe(false);
  });

  it('prefix, suffix and equals-ignore-case on strings only', () => {
    expect(matches({ a: [{ prefix: 'AB' }] }, { a: 'AB12' })).toBe(true);
    expect(matches({ a: [{ prefix: 'AB' }] }, { a: 'ab12' })).toBe(false);
    expect(matches({ a: [{ suffix: '.png' }] }, { a: 'x.png' })).toBe(true);
    expect(matches({ a: [{ suffix: '.png' }] }, { a: 'x.jpg' })).toBe(false);
    expect(matches({ a: [{ 'equals-ignore-case': 'Placed' }] }, { a: 'PLACED' })).toBe(true);
    expect(matches({ a: [{ 'equals-ignore-case': 'Placed' }] }, { a: 'PLACE' })).toBe(false);
    expect(matches({ a: [{ prefix: '1' }] }, { a: 12 })).toBe(false);
  });

  it('numeric equals and ranges, on numbers only', () => {
    const range = { n: [{ numeric: ['>', 0, '<=', 5] }] };
    expect(matches(range, { n: 5 })).toBe(true);
    expect(matches(range, { n: 0 })).toBe(false);
    expect(matches(range, { n: 5.5 })).toBe(false);
    expect(matches(range, { n: '3' })).toBe(false);
    expect(matches({ n: [{ numeric: ['=', 100] }] }, { n: 100 })).toBe(true);
    expect(matches({ n: [{ numeric: ['>=', 10] }] }, { n: 10 })).toBe(true);
    expect(matches({ n: [{ numeric: ['<', 10] }] }, { n: 10 })).toBe(false);
  });

  it('exists: true on a present leaf, false on a missing field; an object is not a leaf', () => {
    expect(matches({ a: [{ exists: true }] }, { a: 'x' })).toBe(true);
    expect(matches({ a: [{ exists: true }] }, {})).toBe(false);
    expect(matches({ a: [{ exists: true }] }, { a: { b: 1 } })).toBe(false);
    expect(matches({ a: [{ exists: false }] }, {})).toBe(true);
    expect(matches({ a: [{ exists: false }] }, { a: 'x' })).toBe(false);
    expect(matches({ a: { b: [{ exists: false }] } }, {})).toBe(true);
  });

  it('anything-but a value or a list matches present fields that differ', () => {
    expect(matches({ a: [{ 'anything-but': 'error' }] }, { a: 'ok' })).toBe(true);
    expect(matches({ a: [{ 'anything-but': 'error' }] }, { a: 'error' })).toBe(false);
    expect(matches({ a: [{ 'anything-but': ['x', 'y'] }] }, { a: 'y' })).toBe(false);
    expect(matches({ a: [{ 'anything-but': [1, 2] }] }, { a: 3 })).toBe(true);
    expect(matches({ a: [{ 'anything-but': 'error' }] }, {})).toBe(false);
  });

  it('$or: any branch, together with the fields beside it', () => {
    const pattern = { type: ['order'], $or: [{ amount: [{ numeric: ['>', 100] }] }, { vip: [true] }] };
    expect(matches(pattern, { type: 'order', amount: 500 })).toBe(true);
    expect(matches(pattern, { type: 'order', amount: 5, vip: true })).toBe(true);
    expect(matches(pattern, { type: 'order', amount: 5 })).toBe(false);
    expect(matches(pattern, { type: 'refund', amount: 500 })).toBe(false);
  });

  it('an array in the record matches when any element does, for values and for objects', () => {
    expect(matches({ tags: ['b'] }, { tags: ['a', 'b'] })).toBe(true);
    expect(matches({ tags: ['c'] }, { tags: ['a', 'b'] })).toBe(false);
    expect(matches({ items: { sku: [{ prefix: 'X' }] } }, { items: [{ sku: 'A1' }, { sku: 'X9' }] })).toBe(
      true,
    );
  });
});

describe('Lambda filter patterns: what Lambda refuses', () => {
  it.each([
    [{ a: [{ wildcard: '*.png' }] }, /"wildcard" is not in Lambda's filter rules/],
    [{ a: [{ cidr: '10.0.0.0/24' }] }, /"cidr" is not in Lambda's filter rules/],
    [{ a: [{ 'anything-but': { prefix: 'x' } }] }, /anything-but takes a string, a number or a list/],
    [{ a: [{ numeric: ['<', 5, '>', 1] }] }, /lower bound .* then an upper bound/],
    [{ a: [{ numeric: ['>', 'one'] }] }, /operator followed by a number/],
    [{ a: [{ prefix: 1 }] }, /prefix takes a string/],
    [{ a: [{ exists: 'yes' }] }, /exists takes true or false/],
    [{ a: [{ prefix: 'x', suffix: 'y' }] }, /exactly one operator/],
    [{ a: [] }, /empty list/],
    [{ a: 'x' }, /must be a list of rules or an object of fields/],
    [{ $or: [{ a: ['x'] }] }, /at least two patterns/],
    [{}, /non-empty object/],
  ])('refuses %j', (pattern, message) => {
    const problems = patternProblems(pattern);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('names the path of the rule it refuses', () => {
    expect(patternProblems({ value: { order: { id: [{ wildcard: 'x*' }] } } })).toEqual([
      expect.stringMatching(/^value\.order\.id\[0\]: "wildcard"/),
    ]);
  });

  it('accepts every rule Lambda lists', () => {
    expect(
      patternProblems({
        value: {
          a: ['x', 1, true, null, ''],
          b: [{ prefix: 'p' }, { suffix: 's' }, { 'equals-ignore-case': 'e' }],
          c: [{ numeric: ['=', 1] }, { numeric: ['>=', 0, '<', 9] }],
          d: [{ exists: true }],
          e: [{ 'anything-but': ['x', 'y'] }],
          $or: [{ f: ['1'] }, { g: ['2'] }],
        },
      }),
    ).toEqual([]);
  });
});

describe('Lambda filter patterns: properties over any JSON record', () => {
  const field = fc.oneof(fc.constant(undefined), fc.jsonValue());
  const recordWith = (value: unknown) => (value === undefined ? {} : { a: value });
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

  it('exists: true and exists: false disagree on every leaf, present or missing; neither matches an object', () => {
    fc.assert(
      fc.property(field, (value) => {
        const present = matches({ a: [{ exists: true }] }, recordWith(value));
        const missing = matches({ a: [{ exists: false }] }, recordWith(value));
        expect(present && missing).toBe(false);
        expect(present || missing).toBe(!isObject(value));
      }),
    );
  });

  it('on a present scalar, anything-but a value matches exactly when the exact value does not', () => {
    const scalar = fc.oneof(fc.string(), fc.integer());
    fc.assert(
      fc.property(scalar, scalar, (value, rule) => {
        const exact = matches({ a: [rule] }, { a: value });
        const anythingBut = matches({ a: [{ 'anything-but': rule }] }, { a: value });
        expect(anythingBut).toBe(!exact);
      }),
    );
  });

  it('never throws on a record, whatever its shape', () => {
    const pattern = compilePattern({
      a: [{ prefix: 'x' }, { numeric: ['>', 0] }, { exists: false }],
      b: { c: [{ 'anything-but': ['y'] }] },
      $or: [{ d: [null] }, { e: [{ 'equals-ignore-case': 'Z' }] }],
    });
    fc.assert(fc.property(fc.jsonValue(), (record) => typeof pattern(record) === 'boolean'));
  });
});
