import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_INFLATED_BYTES, stripMessageIndexes, unframe } from '../../../lambdas/core/wire-format.js';
import { confluentFrame, glueFrame } from '../../../local/schema-registry/wire-frames.js';

const PAYLOAD = Buffer.from([0x0a, 0x04, 0x68, 0x69]);
const UUID = '12345678-1234-1234-1234-123456789012';

describe("unframe: the schema registries' headers", () => {
  it('strips a Confluent header: magic byte 0 and the 4-byte big-endian schema id', () => {
    const result = unframe(confluentFrame(70_000, PAYLOAD), 'schema-registry', undefined);
    expect(result).toEqual({ ok: true, payload: PAYLOAD, registry: 'confluent', schemaId: '70000' });
  });

  it('strips a Glue header: version 3, compression 0 and the 16-byte schema version UUID', () => {
    const result = unframe(glueFrame(UUID, PAYLOAD), 'schema-registry', undefined);
    expect(result).toEqual({ ok: true, payload: PAYLOAD, registry: 'glue', schemaId: UUID });
  });

  it('inflates a Glue payload compressed with zlib (compression byte 5)', () => {
    const framed = glueFrame(UUID, PAYLOAD, { zlib: true });
    expect(framed[1]).toBe(5);
    expect(framed.subarray(18)).not.toEqual(PAYLOAD);
    expect(unframe(framed, 'schema-registry', undefined)).toEqual({
      ok: true,
      payload: PAYLOAD,
      registry: 'glue',
      schemaId: UUID,
    });
  });

  it('refuses a bad magic byte, naming it and the two it expects', () => {
    expect(unframe(Buffer.from([0x7b, 0x22]), 'schema-registry', undefined)).toEqual({
      ok: false,
      error: 'bad magic byte 0x7b: not a Confluent (0x00) or Glue (0x03) schema registry header',
    });
  });

  it('refuses a truncated Confluent header and a truncated Glue header', () => {
    expect(unframe(Buffer.from([0, 0, 1]), 'schema-registry', undefined)).toEqual({
      ok: false,
      error: 'truncated Confluent header: 3 of 5 bytes',
    });
    expect(unframe(glueFrame(UUID, PAYLOAD).subarray(0, 10), 'schema-registry', undefined)).toEqual({
      ok: false,
      error: 'truncated Glue header: 10 of 18 bytes',
    });
  });

  it('refuses an unknown Glue compression byte and a zlib body that is not zlib', () => {
    const unknown = glueFrame(UUID, PAYLOAD);
    unknown[1] = 9;
    expect(unframe(unknown, 'schema-registry', undefined)).toMatchObject({
      ok: false,
      error: expect.stringContaining('0x09'),
    });
    const notZlib = glueFrame(UUID, PAYLOAD);
    notZlib[1] = 5;
    expect(unframe(notZlib, 'schema-registry', undefined)).toEqual({
      ok: false,
      error: 'Glue payload is not valid zlib data',
    });
  });

  it('stops inflating a compression bomb at the limit', () => {
    const bomb = Buffer.concat([
      Buffer.from([3, 5]),
      Buffer.alloc(16),
      deflateSync(Buffer.alloc(MAX_INFLATED_BYTES + 1)),
    ]);
    expect(unframe(bomb, 'schema-registry', undefined)).toEqual({
      ok: false,
      error: `Glue payload inflates past ${MAX_INFLATED_BYTES} bytes`,
    });
  });

  it('refuses an empty or null value', () => {
    expect(unframe(Buffer.alloc(0), 'schema-registry', undefined).ok).toBe(false);
    expect(unframe(null, 'schema-registry', undefined)).toEqual({ ok: false, error: 'value is null' });
  });

  it('takes the value as it is when Lambda removed the header (valueSchemaMetadata with a schema id)', () => {
    // With EventRecordFormat SOURCE, a value may start with any byte: no magic is expected.
    const bare = Buffer.from([0x7b, ...PAYLOAD]);
    expect(unframe(bare, 'schema-registry', { dataFormat: 'AVRO', schemaId: '42' })).toEqual({
      ok: true,
      payload: bare,
      registry: 'confluent',
      schemaId: '42',
    });
    expect(unframe(bare, 'schema-registry', { dataFormat: 'PROTOBUF', schemaId: UUID })).toMatchObject({
      registry: 'glue',
    });
  });

  it('takes the value as it is with framing none', () => {
    expect(unframe(PAYLOAD, 'none', undefined)).toEqual({
      ok: true,
      payload: PAYLOAD,
      registry: undefined,
      schemaId: undefined,
    });
  });
});

describe('stripMessageIndexes: what precedes a Protobuf payload', () => {
  const afterHeader = (framed: Buffer) => framed.subarray(5);

  it("reads Confluent's single 0 as the path [0]", () => {
    const framed = confluentFrame(1, PAYLOAD, [0]);
    expect(framed.subarray(5, 6)).toEqual(Buffer.from([0]));
    expect(stripMessageIndexes(afterHeader(framed), 'confluent')).toEqual({
      ok: true,
      indexes: [0],
      payload: PAYLOAD,
    });
  });

  it('reads a Confluent path of nested messages (zigzag varints)', () => {
    const framed = confluentFrame(1, PAYLOAD, [1, 200]);
    expect(stripMessageIndexes(afterHeader(framed), 'confluent')).toEqual({
      ok: true,
      indexes: [1, 200],
      payload: PAYLOAD,
    });
  });

  it("reads Glue's one unsigned varint index", () => {
    const framed = glueFrame(UUID, PAYLOAD, { messageIndex: 130 });
    expect(stripMessageIndexes(framed.subarray(18), 'glue')).toEqual({
      ok: true,
      indexes: [130],
      payload: PAYLOAD,
    });
  });

  it('refuses truncated or impossible message indexes', () => {
    expect(stripMessageIndexes(Buffer.alloc(0), 'confluent').ok).toBe(false);
    expect(stripMessageIndexes(Buffer.from([0x80]), 'glue').ok).toBe(false);
    // A count of 3 with one index after it.
    expect(stripMessageIndexes(Buffer.from([6, 2]), 'confluent')).toEqual({
      ok: false,
      error: 'truncated Confluent message indexes',
    });
    // A negative count (zigzag 1 is -1).
    expect(stripMessageIndexes(Buffer.from([1]), 'confluent').ok).toBe(false);
  });

  it('leaves a bare payload alone', () => {
    expect(stripMessageIndexes(PAYLOAD, undefined)).toEqual({ ok: true, indexes: [], payload: PAYLOAD });
  });
});
