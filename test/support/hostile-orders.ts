/**
 * The order event (sample/order-consumer/order-placed.ts) in each value format, with room for the shapes a
 * hostile producer reaches for: arrays and maps (counts), strings (lengths), a parent of the same type
 * (nesting), Avro `null`s and Protobuf messages of many fields that encode in next to nothing. Each format
 * gives its value format for the consumer, a generator of shapes and the encoding of an order of a shape
 * as pieces (hostile-encodings.ts), so a mutation can find every count and length in it.
 */
import avro from 'avsc';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { avroValues } from '../../lambdas/avro/avro-values.js';
import { JSON_VALUES, type ValueFormat } from '../../lambdas/core/value-format.js';
import { protobufValues } from '../../lambdas/protobuf/protobuf-values.js';
import type { OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import { avroLong, varint, WIRE_TYPE } from './binary-encodings.js';
import {
  binaryMutation,
  bytesPiece,
  jsonMutation,
  type Mutation,
  type NumberRole,
  type Piece,
} from './hostile-encodings.js';

export interface OrderShape {
  /** Lines with a sku and a quantity. */
  readonly lines: readonly { readonly sku: string; readonly qty: number }[];
  /** Items that encode in (next to) no bytes: Avro `null`s, empty Protobuf lines, JSON zeros. */
  readonly emptyItems: number;
  readonly tags: readonly (readonly [string, string])[];
  /** 1: no parent; n: a chain of n orders, each the parent of the one before. */
  readonly depth: number;
}

export const orderShape: fc.Arbitrary<OrderShape> = fc.record({
  lines: fc.array(fc.record({ sku: fc.string({ maxLength: 8 }), qty: fc.integer({ min: 1, max: 1_000 }) }), {
    maxLength: 4,
  }),
  // Now and then a run that would cost hundreds of MB once decoded, were it not for the budget.
  emptyItems: fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 40_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 300_000, max: 600_000 }) },
  ),
  tags: fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })), { maxLength: 3 }),
  // Around the budget's 100 levels, and far past it.
  depth: fc.oneof(
    { weight: 3, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.integer({ min: 95, max: 105 }) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 300 }) },
  ),
});

export interface HostileFormat {
  readonly name: 'avro' | 'protobuf' | 'json';
  readonly valueFormat: ValueFormat;
  readonly mutation: fc.Arbitrary<Mutation>;
  pieces(order: OrderPlaced, shape: OrderShape): Piece[];
}

const utf8 = (text: string) => [...Buffer.from(text, 'utf8')];
const numberPiece = (
  role: NumberRole,
  value: number | bigint,
  encode: (value: bigint) => number[],
): Piece => ({
  kind: 'number',
  role,
  value: BigInt(value),
  encode,
});
const noParent: Omit<OrderShape, 'depth'> = { lines: [], emptyItems: 0, tags: [] };

// Avro: https://avro.apache.org/docs/1.11.1/specification/#binary-encoding
const AVRO_SCHEMA = {
  type: 'record',
  name: 'HostileOrder',
  fields: [
    ...['event_id', 'type', 'order_id', 'account_id'].map((name) => ({ name, type: 'string' })),
    { name: 'amount', type: 'long' },
    {
      name: 'lines',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'Line',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'qty', type: 'int' },
          ],
        },
      },
    },
    { name: 'marks', type: { type: 'array', items: 'null' } },
    { name: 'tags', type: { type: 'map', values: 'string' } },
    { name: 'parent', type: ['null', 'HostileOrder'] },
  ],
};

const avroNumber = (role: NumberRole, value: number | bigint) => numberPiece(role, value, avroLong);
const avroString = (text: string): Piece[] => [
  avroNumber('length', utf8(text).length),
  bytesPiece(utf8(text)),
];
const avroBlock = (items: readonly Piece[][]): Piece[] =>
  items.length === 0
    ? [avroNumber('count', 0)]
    : [avroNumber('count', items.length), ...items.flat(), avroNumber('count', 0)];

function avroOrder(order: OrderPlaced, shape: OrderShape): Piece[] {
  return [
    ...[order.event_id, order.type, order.order_id, order.account_id].flatMap(avroString),
    avroNumber('varint', order.amount),
    ...avroBlock(shape.lines.map((line) => [...avroString(line.sku), avroNumber('varint', line.qty)])),
    ...(shape.emptyItems === 0
      ? avroBlock([])
      : [avroNumber('count', shape.emptyItems), avroNumber('count', 0)]),
    ...avroBlock(shape.tags.map(([key, value]) => [...avroString(key), ...avroString(value)])),
    ...(shape.depth > 1
      ? [avroNumber('index', 1), ...avroOrder(order, { ...noParent, depth: shape.depth - 1 })]
      : [avroNumber('index', 0)]),
  ];
}

// Protobuf: https://protobuf.dev/programming-guides/encoding/. A Line has 24 fields: an empty one is two
// bytes on the wire and 24 fields once converted.
const LINE_FIELDS = 24;
const PROTO = `syntax = "proto3";
message Line { string sku = 1; int32 qty = 2; ${Array.from({ length: LINE_FIELDS - 2 }, (_, i) => `int32 f${i + 3} = ${i + 3};`).join(' ')} }
message HostileOrder {
  string event_id = 1; string type = 2; string order_id = 3; string account_id = 4; int64 amount = 5;
  repeated Line lines = 6; map<string, string> tags = 7; HostileOrder parent = 8;
}`;
const protobufRoot = protobuf.parse(PROTO, { keepCase: true }).root;

const tag = (field: number, wireType: number) => numberPiece('tag', (field << 3) | wireType, varint);
const encodedLength = (pieces: readonly Piece[]) =>
  pieces.reduce(
    (sum, piece) => sum + (piece.kind === 'bytes' ? piece.bytes.length : piece.encode(piece.value).length),
    0,
  );
const delimited = (field: number, body: readonly Piece[]): Piece[] => [
  tag(field, WIRE_TYPE.lengthDelimited),
  numberPiece('length', encodedLength(body), varint),
  ...body,
];
const protobufString = (field: number, text: string) =>
  text === '' ? [] : delimited(field, [bytesPiece(utf8(text))]);

function protobufOrder(order: OrderPlaced, shape: OrderShape): Piece[] {
  const line = (sku: string, qty: number) => [
    ...protobufString(1, sku),
    tag(2, WIRE_TYPE.varint),
    numberPiece('varint', qty, varint),
  ];
  return [
    ...[order.event_id, order.type, order.order_id, order.account_id].flatMap((text, index) =>
      protobufString(index + 1, text),
    ),
    tag(5, WIRE_TYPE.varint),
    numberPiece('varint', order.amount, varint),
    ...shape.lines.flatMap(({ sku, qty }) => delimited(6, line(sku, qty))),
    // One piece for the run (it may be 600,000 empty Lines long): each the tag of field 6, then length 0.
    bytesPiece(
      Buffer.alloc(2 * shape.emptyItems, Uint8Array.from([(6 << 3) | WIRE_TYPE.lengthDelimited, 0])),
    ),
    ...shape.tags.flatMap(([key, value]) =>
      delimited(7, [...protobufString(1, key), ...protobufString(2, value)]),
    ),
    ...(shape.depth > 1 ? delimited(8, protobufOrder(order, { ...noParent, depth: shape.depth - 1 })) : []),
  ];
}

/** JSON has no counts or lengths: its pieces are text, and its hostile shapes nesting and width. */
function jsonOrder(order: OrderPlaced, shape: OrderShape): Piece[] {
  const text = (depth: number, outer: boolean): string => {
    const fields = JSON.stringify({
      ...order,
      ...(outer ? { lines: shape.lines, tags: Object.fromEntries(shape.tags) } : { lines: [], tags: {} }),
    }).slice(0, -1);
    const zeros = outer && shape.emptyItems > 0 ? `,"marks":[${'0,'.repeat(shape.emptyItems - 1)}0]` : '';
    const parent = depth > 1 ? `,"parent":${text(depth - 1, false)}` : '';
    return `${fields}${zeros}${parent}}`;
  };
  return [bytesPiece(utf8(text(shape.depth, true)))];
}

export const HOSTILE_FORMATS: readonly HostileFormat[] = [
  {
    name: 'avro',
    valueFormat: avroValues({ schema: AVRO_SCHEMA as unknown as avro.Schema, framing: 'none' }),
    mutation: binaryMutation,
    pieces: avroOrder,
  },
  {
    name: 'protobuf',
    valueFormat: protobufValues({ messageType: protobufRoot.lookupType('HostileOrder'), framing: 'none' }),
    mutation: binaryMutation,
    pieces: protobufOrder,
  },
  { name: 'json', valueFormat: JSON_VALUES, mutation: jsonMutation, pieces: jsonOrder },
];

/** The schema's own encoder agrees with the pieces for a plain order (test/unit checks it). */
export const AVRO_ORDER_TYPE = avro.Type.forSchema(AVRO_SCHEMA as unknown as avro.Schema);
export const PROTOBUF_ORDER_TYPE = protobufRoot.lookupType('HostileOrder');
