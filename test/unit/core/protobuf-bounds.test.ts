import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { DECODE_BUDGET, itemAllowance } from '../../../lambdas/core/decode-budget.js';
import { protobufValues } from '../../../lambdas/protobuf/protobuf-values.js';
import { protobufField, protobufTag, varint, WIRE_TYPE } from '../../support/binary-encodings.js';

const FIELDS = 20;
const root = protobuf.parse(
  `syntax = "proto3";
   message Line { ${Array.from({ length: FIELDS }, (_, i) => `int32 f${i} = ${i + 1};`).join(' ')} }
   message Order { string id = 1; repeated Line lines = 2; repeated int32 counts = 3; map<string, Line> by_sku = 4; repeated bytes blobs = 5; }
   message Node { Node next = 1; }`,
  { keepCase: true },
).root;
const format = (name: string, decodeBudget?: { itemsPerByte: number }) =>
  protobufValues({
    messageType: root.lookupType(name),
    framing: 'none',
    ...(decodeBudget ? { decodeBudget } : {}),
  });
const parse = (name: string, bytes: readonly number[]) => format(name).parse(Buffer.from(bytes), undefined);

/** `count` empty Lines in Order.lines: two bytes each, every one given its 20 fields by toObject. */
const emptyLines = (count: number) => Array.from({ length: count }, () => protobufField(2, [])).flat();
/** `depth` Nodes, each the `next` of the one before. */
const nested = (depth: number): number[] => (depth <= 1 ? [] : protobufField(1, nested(depth - 1)));

describe('Protobuf values within the decode budget', () => {
  it('refuses a run of empty messages that toObject would fill out past the budget', () => {
    const value = emptyLines(2_000);
    // Each empty Line is 2 bytes and 20 items: 10 a byte, past the default 4.
    expect(parse('Order', value)).toEqual({
      ok: false,
      reason: 'undecodable',
      error: `value is not a Protobuf message of the type (it decodes to more than ${itemAllowance(value.length, DECODE_BUDGET)} items, its budget)`,
    });
  });

  it('decodes the same run of empty messages with a budget raised in code', () => {
    const decoded = format('Order', { itemsPerByte: 16 }).parse(Buffer.from(emptyLines(2_000)), undefined);
    expect(decoded.ok).toBe(true);
    const lines = decoded.ok ? (decoded.value as { lines: Record<string, number>[] }).lines : [];
    expect(lines).toHaveLength(2_000);
    expect(Object.keys(lines[0] ?? {})).toHaveLength(FIELDS);
  });

  it('counts map entries with their messages', () => {
    const entry = (sku: string) =>
      protobufField(4, [...protobufField(1, [...Buffer.from(sku)]), ...protobufField(2, [])]);
    // 9 bytes an entry, 21 items (the entry and its Line's fields): past one item a byte.
    const entries = (count: number) =>
      Array.from({ length: count }, (_, i) => entry(String(i).padStart(3, '0'))).flat();
    const strict = format('Order', { itemsPerByte: 1 });
    expect(strict.parse(Buffer.from(entries(300)), undefined)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/its budget\)$/),
    });
    expect(strict.parse(Buffer.from(entries(30)), undefined)).toMatchObject({ ok: true });
  });

  it('decodes a packed run of one-byte elements: within any budget of one item a byte', () => {
    const packed = protobufField(
      3,
      Array.from({ length: 5_000 }, () => 1),
    );
    const strict = format('Order', { itemsPerByte: 1 });
    const decoded = strict.parse(Buffer.from(packed), undefined);
    expect(decoded.ok && (decoded.value as { counts: number[] }).counts).toHaveLength(5_000);
  });

  it('weighs each element of a repeated bytes field as the Buffer it becomes', () => {
    // Two bytes an empty element, and a Buffer of about 100 bytes of heap each.
    const blobs = (count: number) => Array.from({ length: count }, () => protobufField(5, [])).flat();
    expect(parse('Order', blobs(100)).ok).toBe(true);
    expect(parse('Order', blobs(2_000))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/its budget\)$/),
    });
  });

  it('refuses a length past the end, for a string, a nested message and a packed run, before reading it', () => {
    const claiming = (field: number, length: bigint) => [
      ...protobufTag(field, WIRE_TYPE.lengthDelimited),
      ...varint(length),
      1,
      2,
    ];
    for (const field of [1, 2, 3]) {
      expect(parse('Order', claiming(field, 2n ** 31n - 1n))).toEqual({
        ok: false,
        reason: 'undecodable',
        error: 'value is not a Protobuf message of the type (it ends early)',
      });
      expect(parse('Order', claiming(field, 2n ** 31n))).toMatchObject({
        error: 'value is not a Protobuf message of the type (a length of 2 GB or more)',
      });
    }
  });

  it('refuses nesting past a budget set lower than protobufjs’s own limit', () => {
    const shallow = protobufValues({
      messageType: root.lookupType('Node'),
      framing: 'none',
      decodeBudget: { maxDepth: 10 },
    });
    expect(shallow.parse(Buffer.from(nested(10)), undefined).ok).toBe(true);
    expect(shallow.parse(Buffer.from(nested(11)), undefined)).toMatchObject({
      error: 'value is not a Protobuf message of the type (it nests deeper than 10 levels)',
    });
  });

  it('refuses nesting past protobufjs’s recursion limit, the budget’s depth', () => {
    expect(parse('Node', nested(DECODE_BUDGET.maxDepth)).ok).toBe(true);
    expect(parse('Node', nested(DECODE_BUDGET.maxDepth + 2))).toEqual({
      ok: false,
      reason: 'undecodable',
      error: 'value is not a Protobuf message of the type (it nests too deep)',
    });
  });
});
