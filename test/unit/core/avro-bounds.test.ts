import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { avroBoundsProblem } from '../../../lambdas/avro/avro-bounds.js';
import { avroValues } from '../../../lambdas/avro/avro-values.js';
import {
  BUFFER_ITEMS,
  DECODE_BUDGET,
  itemAllowance,
  OBJECT_ITEMS,
} from '../../../lambdas/core/decode-budget.js';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { avroLong, avroString } from '../../support/binary-encodings.js';

const schema = (fields: readonly { name: string; type: unknown }[]) =>
  ({ type: 'record', name: 'R', fields }) as unknown as avro.Schema;

const NULLS = schema([{ name: 'xs', type: { type: 'array', items: 'null' } }]);
const INTS = schema([{ name: 'xs', type: { type: 'array', items: 'int' } }]);
const TAGS = schema([{ name: 'tags', type: { type: 'map', values: 'string' } }]);
const NAME = schema([{ name: 'name', type: 'string' }]);
/** A linked list: each node one level deeper. */
const NODE = {
  type: 'record',
  name: 'Node',
  fields: [{ name: 'next', type: ['null', 'Node'] }],
} as unknown as avro.Schema;

const bare = (s: avro.Schema) => avroValues({ schema: s, framing: 'none' });
const problemOf = (s: avro.Schema, bytes: readonly number[]) =>
  avroBoundsProblem(avro.Type.forSchema(s), Buffer.from(bytes), DECODE_BUDGET);

/** A list `depth` nodes long, as its bytes: a union index 1 per node, then 0 (null). */
const nodes = (depth: number) => [...Array.from({ length: depth - 1 }, () => 2), 0];

describe('Avro values within the decode budget', () => {
  it('refuses six bytes claiming 2^60 nulls before anything is allocated', () => {
    const hostile = [...avroLong(2n ** 60n), 0];
    expect(hostile.length).toBeLessThanOrEqual(10);
    const heapBefore = process.memoryUsage().heapUsed;
    expect(bare(NULLS).parse(Buffer.from(hostile), undefined)).toEqual({
      ok: false,
      reason: 'undecodable',
      error: `value is not Avro of the schema (it decodes to more than ${itemAllowance(hostile.length, DECODE_BUDGET)} items, its budget)`,
    });
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024);
  });

  it('takes as many nulls as the budget allows, and refuses one more', () => {
    const within = (count: number) => [...avroLong(count), 0];
    // The allowance grows with the value's own bytes; the record (an object and its one field) and the
    // array (an object) take their share.
    const overhead = OBJECT_ITEMS + 1 + OBJECT_ITEMS;
    const allowed = itemAllowance(within(1_000).length, DECODE_BUDGET) - overhead;
    const atLimit = Buffer.from(within(allowed));
    expect(itemAllowance(atLimit.length, DECODE_BUDGET) - overhead).toBe(allowed);
    const decoded = bare(NULLS).parse(atLimit, undefined);
    expect(decoded.ok && (decoded.value as { xs: unknown[] }).xs).toHaveLength(allowed);
    expect(problemOf(NULLS, within(allowed + 1))).toMatch(/more than \d+ items, its budget/);
  });

  it('weighs a bytes or fixed value as the Buffer it becomes, however few its bytes', () => {
    const empties = schema([
      { name: 'xs', type: { type: 'array', items: { type: 'fixed', name: 'F', size: 0 } } },
    ]);
    const within = (count: number) => [...avroLong(count), 0];
    // Three bytes (a two-byte count, then 0); each empty fixed takes its place in the array and a Buffer.
    const allowed = Math.floor(
      (itemAllowance(3, DECODE_BUDGET) - (OBJECT_ITEMS + 1 + OBJECT_ITEMS)) / (1 + BUFFER_ITEMS),
    );
    expect(bare(empties).parse(Buffer.from(within(allowed)), undefined).ok).toBe(true);
    expect(problemOf(empties, within(allowed + 1))).toMatch(/its budget$/);
  });

  it('refuses a block count more than the bytes left can hold, naming where it is', () => {
    expect(problemOf(INTS, [...avroLong(1_000_000), 1, 1, 0])).toBe(
      'an array or map block at byte 0 counts more items than the 6-byte body can hold',
    );
    expect(problemOf(TAGS, [...avroLong(50), ...avroString('k'), ...avroString('v'), 0])).toMatch(
      /^an array or map block at byte 0 counts more items/,
    );
  });

  it('refuses a negative block count whose byte size runs past the end', () => {
    expect(problemOf(INTS, [...avroLong(-2), ...avroLong(1_000), 2, 4, 0])).toBe(
      'it ends early: a block size at byte 1 runs past the end of the 6-byte body',
    );
  });

  it('decodes a negative block count with its true size, as writers that buffer blocks emit it', () => {
    const value = Buffer.from([...avroLong(-2), ...avroLong(2), ...avroLong(3), ...avroLong(4), 0]);
    expect(bare(INTS).parse(value, undefined)).toEqual({ ok: true, value: { xs: [3, 4] } });
  });

  it('refuses a string length past the end, and a varint longer than 10 bytes', () => {
    expect(problemOf(NAME, [...avroLong(2n ** 40n), 0x61])).toBe(
      'it ends early: a length at byte 0 runs past the end of the 7-byte body',
    );
    expect(problemOf(NAME, [...Array.from({ length: 11 }, () => 0xff), 0])).toBe(
      'a varint at byte 0 is longer than 10 bytes',
    );
    expect(problemOf(NAME, [0x80])).toBe('it ends early');
  });

  it('takes nesting to the budget and refuses one level more', () => {
    expect(bare(NODE).parse(Buffer.from(nodes(DECODE_BUDGET.maxDepth)), undefined).ok).toBe(true);
    expect(problemOf(NODE, nodes(DECODE_BUDGET.maxDepth + 1))).toBe(
      `it nests deeper than ${DECODE_BUDGET.maxDepth} levels`,
    );
  });

  it('refuses a union branch the schema does not have', () => {
    expect(problemOf(NODE, [4, 0])).toBe('the bytes do not fit the schema');
  });

  it('takes a budget set in code, and refuses one that is not a whole number of 1 or more', () => {
    const value = Buffer.from([...avroLong(5_000), 0]);
    expect(bare(NULLS).parse(value, undefined).ok).toBe(false);
    const generous = avroValues({ schema: NULLS, framing: 'none', decodeBudget: { itemsPerByte: 2_000 } });
    expect(generous.parse(value, undefined).ok).toBe(true);
    expect(() => avroValues({ schema: NULLS, decodeBudget: { itemsPerByte: 0, maxDepth: 1.5 } })).toThrow(
      new ConfigError([
        'decodeBudget.maxDepth is 1.5: give a whole number of 1 or more',
        'decodeBudget.itemsPerByte is 0: give a whole number of 1 or more',
      ]),
    );
  });
});
