import avro from 'avsc';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { avroValues } from '../../../lambdas/avro/avro-values.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { DEFAULT_DEDUP_KEY_POLICY, deriveDedupKey } from '../../../lambdas/core/dedup-key.js';
import { orderingKeyOf } from '../../../lambdas/core/ordering.js';
import { JSON_VALUES } from '../../../lambdas/core/value-format.js';
import { protobufValues } from '../../../lambdas/protobuf/protobuf-values.js';
import { encodeAvroOrder, ORDER_AVRO_SCHEMA, orderAvroValues } from '../../../local/orders/order-avro.js';
import { confluentFrame, glueFrame } from '../../../local/schema-registry/wire-frames.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { encodeProtobufOrder, orderProtobufType } from '../../support/order-protobuf.js';

const ORDER = {
  event_id: 'evt-1',
  type: 'OrderPlaced',
  order_id: 'ord-1',
  account_id: 'acct-1',
  amount: 1250,
};
const UUID = 'b7b4a7f0-0d3c-4a8e-9d8e-1f2a3b4c5d6e';
const orderType = avro.Type.forSchema(ORDER_AVRO_SCHEMA as unknown as avro.Schema);

describe('Avro values', () => {
  const format = orderAvroValues();

  it('decodes a Confluent-framed record to the plain object a schema validates', () => {
    expect(format.parse(encodeAvroOrder(ORDER), undefined)).toEqual({ ok: true, value: ORDER });
  });

  it('decodes a Glue-framed record, compressed or not', () => {
    for (const zlib of [false, true]) {
      expect(format.parse(glueFrame(UUID, orderType.toBuffer(ORDER), { zlib }), undefined)).toEqual({
        ok: true,
        value: ORDER,
      });
    }
  });

  it('keeps a long past 2^53 as a bigint and a safe one as a number', () => {
    const big = 2n ** 62n + 1n;
    const wide = avroValues({ schema: { type: 'record', name: 'W', fields: [{ name: 'n', type: 'long' }] } });
    const encode = (n: bigint) => {
      const bytes = Buffer.alloc(10);
      // Avro's long: zigzag then base-128 varint.
      let rest = n >= 0n ? n * 2n : -n * 2n - 1n;
      let length = 0;
      while (rest >= 0x80n) {
        bytes[length++] = Number(rest & 0x7fn) | 0x80;
        rest >>= 7n;
      }
      bytes[length++] = Number(rest);
      return confluentFrame(9, bytes.subarray(0, length));
    };
    expect(wide.parse(encode(big), undefined)).toEqual({ ok: true, value: { n: big } });
    expect(wide.parse(encode(-big), undefined)).toEqual({ ok: true, value: { n: -big } });
    expect(wide.parse(encode(42n), undefined)).toEqual({ ok: true, value: { n: 42 } });
  });

  it('gives plain objects, nested records too: the DynamoDB document client refuses class instances', () => {
    const schema: avro.Schema = {
      type: 'record',
      name: 'Outer',
      fields: [
        { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'n', type: 'int' }] } },
      ],
    };
    const bytes = avro.Type.forSchema(schema).toBuffer({ inner: { n: 1 } });
    const parsed = avroValues({ schema, framing: 'none' }).parse(bytes, undefined);
    const value = (parsed.ok ? parsed.value : undefined) as { inner: object };
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(value.inner)).toBe(Object.prototype);
  });

  it('quarantines as undecodable: bad magic, a truncated record, bytes of another schema', () => {
    const bytes = encodeAvroOrder(ORDER);
    const cases = [
      Buffer.from('{"event_id":"evt-1"}'),
      bytes.subarray(0, bytes.length - 3),
      confluentFrame(
        2,
        avro.Type.forSchema({
          type: 'record',
          name: 'Other',
          fields: [{ name: 'x', type: 'double' }],
        }).toBuffer({ x: 1.5 }),
      ),
    ];
    const results = cases.map((value) => format.parse(value, undefined));
    expect(results).toEqual([
      { ok: false, reason: 'undecodable', error: expect.stringContaining('bad magic byte 0x7b') },
      {
        ok: false,
        reason: 'undecodable',
        error:
          'value is not Avro of the schema (it ends early: a length at byte 25 runs past the end of the 31-byte body)',
      },
      { ok: false, reason: 'undecodable', error: expect.stringMatching(/^value is not Avro of the schema/) },
    ]);
  });

  it('decodes bare Avro with framing none, and when Lambda removed the header (SOURCE)', () => {
    const bare = orderType.toBuffer(ORDER);
    expect(orderAvroValues().parse(bare, { dataFormat: 'AVRO', schemaId: '1' })).toEqual({
      ok: true,
      value: ORDER,
    });
    expect(
      avroValues({ schema: JSON.stringify(ORDER_AVRO_SCHEMA), framing: 'none' }).parse(bare, undefined),
    ).toEqual({
      ok: true,
      value: ORDER,
    });
  });
});

describe('Protobuf values', () => {
  const format = protobufValues({ messageType: orderProtobufType });

  it('decodes a Confluent-framed message after its message indexes', () => {
    expect(format.parse(confluentFrame(3, encodeProtobufOrder(ORDER), [0]), undefined)).toEqual({
      ok: true,
      value: ORDER,
    });
    expect(format.parse(confluentFrame(3, encodeProtobufOrder(ORDER), [2, 1]), undefined)).toEqual({
      ok: true,
      value: ORDER,
    });
  });

  it('decodes a Glue-framed message after its index, compressed or not', () => {
    for (const zlib of [false, true]) {
      const framed = glueFrame(UUID, encodeProtobufOrder(ORDER), { zlib, messageIndex: 1 });
      expect(format.parse(framed, undefined)).toEqual({ ok: true, value: ORDER });
    }
  });

  it('keeps an int64 past 2^53 as a bigint', () => {
    const amount = 2n ** 60n + 7n;
    const framed = confluentFrame(3, encodeProtobufOrder({ ...ORDER, amount }), [0]);
    expect(format.parse(framed, undefined)).toEqual({ ok: true, value: { ...ORDER, amount } });
  });

  it("quarantines as undecodable: bad magic, truncated message, another message's bytes", () => {
    const bytes = confluentFrame(3, encodeProtobufOrder(ORDER), [0]);
    const results = [
      Buffer.from([0x42, 1, 2]),
      bytes.subarray(0, bytes.length - 4),
      confluentFrame(3, Buffer.from([0x0f, 0xff]), [0]),
    ].map((value) => format.parse(value, undefined));
    for (const result of results) expect(result).toMatchObject({ ok: false, reason: 'undecodable' });
    expect(results[1]).toEqual({
      ok: false,
      reason: 'undecodable',
      error: 'value is not a Protobuf message of the type (it ends early)',
    });
  });

  it("calls a message nested past the stack's depth undecodable instead of crashing", () => {
    const node = protobuf
      .parse('syntax = "proto3"; message Node { Node child = 1; }')
      .root.lookupType('Node');
    // Field 1, length-delimited, around the message so far: built from the inside out, joined once.
    const headers: Buffer[] = [];
    let size = 0;
    for (let depth = 0; depth < 100_000; depth += 1) {
      const header = [0x0a];
      for (let n = size; ; n = Math.floor(n / 128)) {
        header.push(n < 0x80 ? n : (n % 0x80) | 0x80);
        if (n < 0x80) break;
      }
      headers.push(Buffer.from(header));
      size += header.length;
    }
    const bytes = Buffer.concat(headers.reverse());
    expect(protobufValues({ messageType: node, framing: 'none' }).parse(bytes, undefined)).toMatchObject({
      ok: false,
      reason: 'undecodable',
    });
  });

  it('skips the message indexes Lambda leaves when it removed the header (SOURCE)', () => {
    const confluentIndexes = Buffer.concat([Buffer.from([0]), encodeProtobufOrder(ORDER)]);
    expect(format.parse(confluentIndexes, { dataFormat: 'PROTOBUF', schemaId: '3' })).toEqual({
      ok: true,
      value: ORDER,
    });
    const glueIndex = Buffer.concat([Buffer.from([1]), encodeProtobufOrder(ORDER)]);
    expect(format.parse(glueIndex, { dataFormat: 'PROTOBUF', schemaId: UUID })).toEqual({
      ok: true,
      value: ORDER,
    });
  });
});

describe('JSON values', () => {
  it('reads JSON whatever a schema registry says, as with EventRecordFormat JSON', () => {
    expect(
      JSON_VALUES.parse(Buffer.from(JSON.stringify(ORDER)), { dataFormat: 'AVRO', schemaId: '1' }),
    ).toEqual({
      ok: true,
      value: ORDER,
    });
  });

  it('keeps invalid-event as the reason for a value that is not JSON', () => {
    expect(JSON_VALUES.parse(Buffer.from('{"a":'), undefined)).toEqual({
      ok: false,
      reason: 'invalid-event',
      error: 'value is not JSON (it ends early)',
    });
  });
});

describe('what reads record.parsed', () => {
  const protobuf = protobufValues({ messageType: orderProtobufType });
  const decoded = (value: Uint8Array, format = protobuf) =>
    decodeEvent(kafkaEvent([{ offset: 1, value }]), format)[0]?.records[0];

  it('takes the dedup key from the decoded field, and names the format when there is none', () => {
    const record = decoded(confluentFrame(3, encodeProtobufOrder(ORDER), [0]));
    expect(record && deriveDedupKey(record, DEFAULT_DEDUP_KEY_POLICY)).toEqual({
      ok: true,
      key: 'evt-1',
      from: 'field',
    });
    const keyless = decoded(encodeAvroOrder({ ...ORDER, event_id: null }), orderAvroValues());
    expect(keyless && deriveDedupKey(keyless, DEFAULT_DEDUP_KEY_POLICY)).toEqual({
      ok: false,
      reason: 'missing-event-id',
      message: 'no header "event_id" and no string field "event_id" in the Avro value',
    });
  });

  it('orders by a decoded field, a wide integer included', () => {
    const amount = 2n ** 60n + 7n;
    const record = decoded(confluentFrame(3, encodeProtobufOrder({ ...ORDER, amount }), [0]));
    expect(record && orderingKeyOf(record, { from: 'field', field: 'amount' })).toBe(amount.toString());
    expect(record && orderingKeyOf(record, { from: 'field', field: 'account_id' })).toBe('acct-1');
  });
});
