import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elementsOf, type FlatEvent, flattenJsonText, flattenValue } from '../../../lib/filter-event.js';
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
    [{ a: [{ 'anything-but': { prefix: 'x' } }] }, /anything-but takes a string, a number, or a list/],
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

  it('exactly one of exists: true and exists: false matches any value: true when the field holds a leaf', () => {
    /** A scalar, or an array holding one at any depth of arrays (not inside an object). */
    const holdsLeaf = (value: unknown): boolean =>
      Array.isArray(value) ? value.some(holdsLeaf) : typeof value !== 'object' || value === null;
    fc.assert(
      fc.property(field, (value) => {
        const present = matches({ a: [{ exists: true }] }, recordWith(value));
        const missing = matches({ a: [{ exists: false }] }, recordWith(value));
        expect(present).toBe(!missing);
        expect(present).toBe(value !== undefined && holdsLeaf(value));
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

describe('Lambda filter patterns: as AWS matches what is not a plain leaf', () => {
  it('compares exact numbers by their text, as Lambda documents (300, 300.0 and 3.0e2 differ), and numeric rules by value', () => {
    const text = (json: string) => flattenJsonText(json);
    expect(compilePattern({ a: [300] })(text('{"a":300}'))).toBe(true);
    expect(compilePattern({ a: [300] })(text('{"a":300.0}'))).toBe(false);
    expect(compilePattern({ a: [300] })(text('{"a":3.0e2}'))).toBe(false);
    expect(compilePattern({ a: [{ 'anything-but': [300] }] })(text('{"a":3.0e2}'))).toBe(true);
    expect(compilePattern({ a: [{ numeric: ['=', 300] }] })(text('{"a":3.0e2}'))).toBe(true);
  });

  it('matches numeric rules within ±5.0e9 at six decimals only, and refuses bounds past that at synth', () => {
    expect(matches({ n: [{ numeric: ['>', 0] }] }, { n: 5e9 })).toBe(true);
    expect(matches({ n: [{ numeric: ['>', 0] }] }, { n: 5e9 + 1 })).toBe(false);
    expect(matches({ n: [{ numeric: ['>', 1] }] }, { n: 1.0000004 })).toBe(false);
    expect(matches({ n: [{ numeric: ['>', 1] }] }, { n: 1.000001 })).toBe(true);
    expect(patternProblems({ n: [{ numeric: ['>', 1_700_000_000_000] }] })).toEqual([
      expect.stringMatching(
        /bound 1700000000000 is outside what AWS documents for numeric matching: -5\.0e9 to 5\.0e9/,
      ),
    ]);
    expect(patternProblems({ n: [{ numeric: ['=', 0.1234567] }] })).toEqual([
      expect.stringMatching(/at most 6 digits after the decimal point/),
    ]);
    expect(patternProblems({ n: [{ numeric: ['>=', 5, '<=', 5] }] })).toEqual([
      expect.stringMatching(/lower bound must be below its upper bound/),
    ]);
  });

  it('flattens arrays within arrays, and takes the fields of one match from one element of each array', () => {
    expect(matches({ a: [1] }, { a: [[1, 2], [3]] })).toBe(true);
    const employees = { employees: [[{ first: 'Anna', last: 'Smith' }], [{ first: 'John', last: 'Doe' }]] };
    expect(matches({ employees: { first: ['Anna'], last: ['Smith'] } }, employees)).toBe(true);
    expect(matches({ employees: { first: ['Anna'], last: ['Doe'] } }, employees)).toBe(false);
  });

  it('finds the one element that holds every field, however many leaves the fields have elsewhere', () => {
    // Each field has 400 leaves in an inner array of its own; only the outer element constrains the choice
    // (tried leaf by leaf, the fields would ask for 400^3 choices before w's failed).
    const ones = Array.from({ length: 400 }, () => 1);
    const pattern = { outer: { x: [1], y: [1], z: [1], w: [1] } };
    expect(matches(pattern, { outer: [{ x: ones, y: ones, z: ones }, { w: ones }] })).toBe(false);
    expect(
      matches(pattern, {
        outer: [
          { x: ones, y: ones },
          { x: ones, y: ones, z: ones, w: [2, 1] },
        ],
      }),
    ).toBe(true);
  });

  it('takes an object, [] or an array of objects as no leaf: exists: false matches, anything-but does not', () => {
    for (const a of [{ b: 1 }, {}, [], [{ b: 1 }], [[]]]) {
      expect(matches({ a: [{ exists: false }] }, { a })).toBe(true);
      expect(matches({ a: [{ exists: true }] }, { a })).toBe(false);
      expect(matches({ a: [{ 'anything-but': 'x' }] }, { a })).toBe(false);
    }
  });

  it('refuses at synth what AWS would decide by accident: a dotted name, a name beside $or and in a branch, exists: false beside a field of one nested object', () => {
    expect(patternProblems({ 'a.b': ['x'] })).toEqual([
      expect.stringMatching(/^a\.b: a field name with a dot is ambiguous/),
    ]);
    expect(patternProblems({ name: ['a'], $or: [{ name: ['b'] }, { c: ['x'] }] })).toEqual([
      expect.stringMatching(/the field is named twice \(name and \$or\[0\]\.name/),
    ]);
    expect(patternProblems({ d: { a: [{ exists: false }], b: [1] } })).toEqual([
      expect.stringMatching(/^d\.a: exists: false beside d\.b under one nested object is ambiguous/),
    ]);
    // Beside a field of the event itself, or alone under a nested object, it is plain.
    expect(patternProblems({ a: [{ exists: false }], b: [1] })).toEqual([]);
    expect(patternProblems({ d: { a: [{ exists: false }] }, e: [1] })).toEqual([]);
  });

  it('refuses anything-but lists AWS refuses, operator names as field names inside $or, and more than 1,000 $or combinations', () => {
    expect(patternProblems({ a: [{ 'anything-but': ['x', 1] }] })).toEqual([
      expect.stringMatching(/strings only or of numbers only/),
    ]);
    expect(patternProblems({ $or: [{ numeric: [1] }, { b: [2] }] })).toEqual([
      expect.stringMatching(
        /"numeric" names an operator, and AWS's matcher refuses it as a field name inside \$or/,
      ),
    ]);
    expect(patternProblems({ numeric: [1] })).toEqual([]);
    const branches = (name: string) => Array.from({ length: 10 }, (_, i) => ({ [name]: [i] }));
    const thousand = { x: { $or: branches('a') }, y: { $or: branches('b') }, z: { $or: branches('c') } };
    expect(patternProblems(thousand)).toEqual([]);
    expect(patternProblems({ ...thousand, w: { $or: [{ d: [1] }, { e: [2] }] } })).toEqual([
      expect.stringMatching(/more than 1000 combinations, which AWS refuses/),
    ]);
    // Refused before it is made: a thousand combinations beside eight branches of a thousand each ask for
    // eight million, in under 4,096 characters (made, they exhaust a gigabyte of heap).
    const asking = { v: thousand, $or: Array.from({ length: 8 }, () => thousand) };
    expect(JSON.stringify(asking).length).toBeLessThan(4_096);
    expect(patternProblems(asking)).toEqual([expect.stringMatching(/more than 1000 combinations/)]);
  });

  it('refuses a number JSON cannot carry (CDK would write null)', () => {
    expect(patternProblems({ a: [Number.POSITIVE_INFINITY] })).toEqual([
      expect.stringMatching(/Infinity is not a number JSON can carry/),
    ]);
    expect(patternProblems({ a: [{ 'anything-but': [Number.NaN] }] })).toEqual([
      expect.stringMatching(/NaN is not a number JSON can carry/),
    ]);
  });
});

describe('events as leaves', () => {
  it('reads a JSON text to the same leaves as its parsed value, numbers aside', () => {
    // Each leaf as its value and its element in each array it is in, outermost first; array ids may differ.
    const leavesOf = (event: FlatEvent, paths: readonly string[]) =>
      paths.map((path) =>
        event
          .leavesAt(path)
          .map((leaf) => JSON.stringify([leaf.value, elementsOf(leaf).map(([, element]) => element)]))
          .sort(),
      );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        const paths = [...new Set(collectPaths(value, ''))];
        const fromText = leavesOf(flattenJsonText(text), paths);
        const fromValue = leavesOf(flattenValue(JSON.parse(text)), paths);
        expect(fromText).toEqual(fromValue);
      }),
    );
  });

  it('flattens a value nested a million deep without a stack', () => {
    const depth = 1_000_000;
    const event = flattenJsonText(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    expect(event.leavesAt(Array.from({ length: depth }, () => 'a').join('.'))).toHaveLength(1);
    const arrays = flattenJsonText(`{"a":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`);
    expect(compilePattern({ a: ['x'] })(arrays)).toBe(true);
  });
});

function collectPaths(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((element) => collectPaths(element, path));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([name, field]) =>
      collectPaths(field, path === '' ? name : `${path}.${name}`),
    );
  }
  return [path];
}

describe('equals-ignore-case, code point by code point', () => {
  it('takes any character, a hyphen and a slash included, and folds each one to one code point', () => {
    const rule = (text: string) => ({ a: [{ 'equals-ignore-case': text }] });
    expect(patternProblems(rule('order-placed/us-east-1'))).toEqual([]);
    expect(matches(rule('order-placed/us-east-1'), { a: 'Order-Placed/US-EAST-1' })).toBe(true);
    expect(matches(rule('a.c'), { a: 'abc' })).toBe(false);
    expect(matches(rule('ΟΔΟΣ'), { a: 'οδοσ' })).toBe(true);
    expect(matches(rule('ΟΔΟΣ'), { a: 'οδος' })).toBe(false);
    expect(matches(rule('k'), { a: '\u212a' })).toBe(false);
    expect(matches(rule('ß'), { a: 'SS' })).toBe(false);
    expect(matches(rule('É'), { a: 'é' })).toBe(true);
  });
});
