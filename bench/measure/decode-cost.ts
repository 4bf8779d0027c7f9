/**
 * What one value costs to decode at the edge of its format's budget (lambdas/core/decode-budget.ts), and
 * how fast a hostile one is refused: the heap the decoded value keeps and the most it took while being
 * made, per byte of payload, and the time, for the shapes that cost the most per byte (empty records and
 * messages, nulls, nested arrays) and ordinary ones. Measured in this process with the collector run
 * before each reading (V8's --expose-gc, set here), before anything else of the bench has run.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import avro from 'avsc';
import protobuf from 'protobufjs';
import { avroValues } from '../../lambdas/avro/avro-values.js';
import {
  BUFFER_ITEMS,
  DECODE_BUDGET,
  itemAllowance,
  OBJECT_ITEMS,
} from '../../lambdas/core/decode-budget.js';
import { JSON_VALUES, type ValueFormat } from '../../lambdas/core/value-format.js';
import { protobufValues } from '../../lambdas/protobuf/protobuf-values.js';
import { zigzagVarint } from '../../local/schema-registry/wire-frames.js';

export interface DecodeCostRow {
  readonly format: 'Avro' | 'Protobuf' | 'JSON';
  readonly shape: string;
  readonly payloadBytes: number;
  /** Heap the decoded (plain) value keeps, per payload byte. */
  readonly retainedPerByte: number;
  /** Heap grown while decoding, garbage included, per payload byte. */
  readonly peakPerByte: number;
  readonly milliseconds: number;
}

export interface RefusalRow {
  readonly format: 'Avro' | 'Protobuf';
  readonly shape: string;
  readonly payloadBytes: number;
  readonly microseconds: number;
  readonly error: string;
}

export interface DecodeCostMeasurement {
  readonly decoded: readonly DecodeCostRow[];
  readonly refused: readonly RefusalRow[];
}

const MB = 1024 * 1024;
const avroRecord = (fields: readonly { name: string; type: unknown }[]) =>
  ({ type: 'record', name: 'R', fields }) as unknown as avro.Schema;

export function measureDecodeCost(): DecodeCostMeasurement {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const decode = (
    format: DecodeCostRow['format'],
    shape: string,
    valueFormat: ValueFormat,
    payload: Buffer,
  ) => {
    const before = heap();
    const started = performance.now();
    const parsed = valueFormat.parse(payload, undefined);
    const milliseconds = performance.now() - started;
    const peak = process.memoryUsage().heapUsed - before;
    const retained = heap() - before;
    if (!parsed.ok) throw new Error(`${format} ${shape} did not decode: ${parsed.error}`);
    return {
      format,
      shape,
      payloadBytes: payload.length,
      retainedPerByte: retained / payload.length,
      peakPerByte: Math.max(peak, retained) / payload.length,
      milliseconds,
      keep: parsed,
    } as DecodeCostRow & { keep: unknown };
  };

  /**
   * The largest value `build(count)` makes within the budget: `count` items of `perItem` each besides
   * `overhead`, solved for the payload's own length (it grows with the count), then checked by decoding.
   */
  const atTheEdge = (build: (count: number) => Buffer, perItem: number, overhead: number): Buffer => {
    let count = 0;
    for (let step = 0; step < 4; step += 1) {
      count = Math.floor((itemAllowance(build(count).length, DECODE_BUDGET) - overhead) / perItem);
    }
    return build(count);
  };

  const emptyRecords = avroRecord([
    { name: 'pad', type: 'string' },
    { name: 'xs', type: { type: 'array', items: { type: 'record', name: 'E', fields: [] } } },
  ]);
  const nulls = avroRecord([
    { name: 'pad', type: 'string' },
    { name: 'xs', type: { type: 'array', items: 'null' } },
  ]);
  const emptyBytes = avroRecord([
    { name: 'pad', type: 'string' },
    { name: 'xs', type: { type: 'array', items: 'bytes' } },
  ]);
  const ints = avroRecord([{ name: 'xs', type: { type: 'array', items: 'int' } }]);
  /** A 1 MB filler string, then `count` items; the record and the array are objects with their fields. */
  const padded = (schema: avro.Schema, item: unknown) => {
    const type = avro.Type.forSchema(schema);
    return (count: number) =>
      type.toBuffer({ pad: 'x'.repeat(MB), xs: Array.from({ length: count }, () => item) });
  };
  const avroOverhead = OBJECT_ITEMS + 2 + OBJECT_ITEMS;

  const LINE_FIELDS = 24;
  const root = protobuf.parse(
    `syntax = "proto3";
     message Line { ${Array.from({ length: LINE_FIELDS }, (_, i) => `int32 f${i} = ${i + 1};`).join(' ')} }
     message Order { bytes pad = 1; repeated Line lines = 2; repeated int32 counts = 3; }`,
  ).root;
  const order = root.lookupType('Order');
  const protobufFormat = protobufValues({ messageType: order, framing: 'none' });
  const emptyLines = (padBytes: number) => (count: number) =>
    Buffer.from(
      order
        .encode({ pad: Buffer.alloc(padBytes), lines: Array.from({ length: count }, () => ({})) })
        .finish(),
    );
  // Each empty Line: its object, its 24 fields, its place in the array; the Order: its object, its 3
  // fields and its 2 arrays.
  const lineItems = OBJECT_ITEMS + LINE_FIELDS + 1;
  const orderItems = OBJECT_ITEMS * 3 + 3;

  const rows = [
    decode(
      'Avro',
      'empty records at the budget',
      avroValues({ schema: emptyRecords, framing: 'none' }),
      atTheEdge(padded(emptyRecords, {}), 1 + OBJECT_ITEMS, avroOverhead),
    ),
    decode(
      'Avro',
      'nulls at the budget',
      avroValues({ schema: nulls, framing: 'none' }),
      atTheEdge(padded(nulls, null), 1, avroOverhead),
    ),
    decode(
      'Avro',
      'empty bytes at the budget',
      avroValues({ schema: emptyBytes, framing: 'none' }),
      atTheEdge(padded(emptyBytes, Buffer.alloc(0)), 1 + BUFFER_ITEMS, avroOverhead),
    ),
    decode(
      'Avro',
      'ints, one a byte',
      avroValues({ schema: ints, framing: 'none' }),
      avro.Type.forSchema(ints).toBuffer({ xs: Array.from({ length: MB }, () => 1) }),
    ),
    decode(
      'Protobuf',
      `empty ${LINE_FIELDS}-field messages at the budget`,
      protobufFormat,
      atTheEdge(emptyLines(MB), lineItems, orderItems),
    ),
    decode(
      'Protobuf',
      'packed ints, one a byte',
      protobufFormat,
      Buffer.from(order.encode({ counts: Array.from({ length: MB }, () => 1) }).finish()),
    ),
    decode(
      'JSON',
      'nested arrays (no budget)',
      JSON_VALUES,
      Buffer.from(`${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`),
    ),
    decode('JSON', 'empty objects (no budget)', JSON_VALUES, Buffer.from(`[${'{},'.repeat(MB / 3 - 1)}{}]`)),
  ];

  const refuse = (
    format: RefusalRow['format'],
    shape: string,
    valueFormat: ValueFormat,
    payload: Buffer,
  ): RefusalRow => {
    const started = performance.now();
    const parsed = valueFormat.parse(payload, undefined);
    const microseconds = (performance.now() - started) * 1000;
    if (parsed.ok) throw new Error(`${format} ${shape} was decoded`);
    return { format, shape, payloadBytes: payload.length, microseconds, error: parsed.error };
  };
  // An empty pad, then a block count no bytes back.
  const claimed = (count: bigint) => Buffer.concat([zigzagVarint(0), zigzagVarint(count), zigzagVarint(0)]);
  const refused = [
    refuse(
      'Avro',
      'a count of 2^60 nulls',
      avroValues({ schema: nulls, framing: 'none' }),
      claimed(2n ** 60n),
    ),
    refuse('Protobuf', `1 MB of empty ${LINE_FIELDS}-field messages`, protobufFormat, emptyLines(0)(MB / 2)),
  ];
  return { decoded: rows.map(({ keep: _, ...row }) => row), refused };
}
