/**
 * The varints of the binary formats, put where a test likes so they claim what it likes: a count no bytes
 * back, a length past the end, a varint longer than any integer.
 */
import { unsignedVarint, zigzagVarint } from '../../local/schema-registry/wire-frames.js';

/** An unsigned varint (local/schema-registry/wire-frames.ts), as bytes to splice. */
export function varint(value: bigint | number): number[] {
  return [...unsignedVarint(value)];
}

/** Avro's int and long: zigzag, then a varint (https://avro.apache.org/docs/1.11.1/specification/#binary-encoding). */
export function avroLong(value: bigint | number): number[] {
  return [...zigzagVarint(value)];
}

/** An Avro string: its byte length, then its UTF-8 bytes. */
export function avroString(text: string): number[] {
  const bytes = [...Buffer.from(text, 'utf8')];
  return [...avroLong(bytes.length), ...bytes];
}

export const WIRE_TYPE = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;

/** A Protobuf field's tag: its number and wire type. */
export function protobufTag(field: number, wireType: number): number[] {
  return varint((BigInt(field) << 3n) | BigInt(wireType));
}

/** A length-delimited Protobuf field (string, bytes, message, packed run) with its true length. */
export function protobufField(field: number, body: readonly number[]): number[] {
  return [...protobufTag(field, WIRE_TYPE.lengthDelimited), ...varint(body.length), ...body];
}
