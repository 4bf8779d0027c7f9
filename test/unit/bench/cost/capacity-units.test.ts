import { describe, expect, it } from 'vitest';
import { itemSizeBytes, readUnits, writeUnits } from '../../../../bench/cost/capacity-units.js';

describe('the item size DynamoDB bills', () => {
  it('counts attribute names and string bytes in UTF-8', () => {
    expect(itemSizeBytes({ pk: { S: 'abc' } })).toBe(5);
    expect(itemSizeBytes({ n: { S: 'é' } })).toBe(3);
  });

  it('counts a number as 1 byte per two significant digits plus 1', () => {
    expect(itemSizeBytes({ n: { N: '12345' } })).toBe(1 + 3 + 1);
    // Leading and trailing zeroes are not significant.
    expect(itemSizeBytes({ n: { N: '-000120.500' } })).toBe(1 + 2 + 1);
    expect(itemSizeBytes({ n: { N: '0' } })).toBe(1 + 1 + 1);
  });

  it('counts binary as its bytes, booleans and null as 1', () => {
    expect(itemSizeBytes({ b: { B: new Uint8Array(10) }, t: { BOOL: true }, z: { NULL: true } })).toBe(
      11 + 2 + 2,
    );
  });

  it('gives a list or a map 3 bytes, plus 1 per element and what the elements hold', () => {
    expect(itemSizeBytes({ l: { L: [] } })).toBe(1 + 3);
    expect(itemSizeBytes({ l: { L: [{ S: 'ab' }, { N: '1' }] } })).toBe(1 + 3 + 2 + 2 + 2);
    expect(itemSizeBytes({ m: { M: { id: { S: 'x' } } } })).toBe(1 + 3 + 1 + 2 + 1);
  });

  it('counts each member of a set', () => {
    expect(itemSizeBytes({ s: { SS: ['a', 'bc'] }, n: { NS: ['1', '22'] } })).toBe(1 + 3 + 1 + 2 + 2);
  });
});

describe('write units', () => {
  it('bills a standard write 1 unit per started KB', () => {
    expect(writeUnits(1, 'standard')).toBe(1);
    expect(writeUnits(1024, 'standard')).toBe(1);
    expect(writeUnits(1025, 'standard')).toBe(2);
  });

  it('bills a transactional write 2 units per started KB', () => {
    expect(writeUnits(500, 'transactional')).toBe(2);
    expect(writeUnits(2049, 'transactional')).toBe(6);
  });
});

describe('read units', () => {
  it('bills a strongly consistent read 1 unit per started 4 KB, an eventually consistent one half, a transactional one 2', () => {
    expect(readUnits(4096, 'strong')).toBe(1);
    expect(readUnits(4097, 'strong')).toBe(2);
    expect(readUnits(4097, 'eventual')).toBe(1);
    expect(readUnits(100, 'transactional')).toBe(2);
  });

  it('bills reading nothing as reading one small item', () => {
    expect(readUnits(0, 'strong')).toBe(1);
    expect(readUnits(0, 'eventual')).toBe(0.5);
  });
});
