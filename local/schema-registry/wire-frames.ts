/**
 * The producer's side of the schema registries' wire formats (lambdas/core/wire-format.ts reads them; the
 * sources are cited there): what a Confluent or Glue serializer writes before an Avro or Protobuf
 * payload. The demo's Avro producer and the tests frame values with it.
 */
import { deflateSync } from 'node:zlib';
import {
  CONFLUENT_MAGIC_BYTE,
  GLUE_COMPRESSION,
  GLUE_HEADER_VERSION,
} from '../../lambdas/core/wire-format.js';

/** Magic byte 0, the schema id big-endian, then (Protobuf only) the message indexes, then the payload. */
export function confluentFrame(
  schemaId: number,
  payload: Uint8Array,
  messageIndexes?: readonly number[],
): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt8(CONFLUENT_MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  if (messageIndexes === undefined) return Buffer.concat([header, payload]);
  // Confluent writes the first message's path [0] as a single 0 (a count of zero).
  const indexes =
    messageIndexes.length === 1 && messageIndexes[0] === 0
      ? [zigzagVarint(0)]
      : [zigzagVarint(messageIndexes.length), ...messageIndexes.map(zigzagVarint)];
  return Buffer.concat([header, ...indexes, payload]);
}

/** Header version 3, compression (0 or 5: zlib), the schema version UUID, then the payload. */
export function glueFrame(
  schemaVersionId: string,
  payload: Uint8Array,
  options: { readonly zlib?: boolean; readonly messageIndex?: number } = {},
): Buffer {
  const uuid = Buffer.from(schemaVersionId.replaceAll('-', ''), 'hex');
  if (uuid.length !== 16) throw new Error(`not a UUID: ${schemaVersionId}`);
  // Glue's Protobuf serializer puts the message's index (an unsigned varint) before the message.
  const body =
    options.messageIndex === undefined
      ? Buffer.from(payload)
      : Buffer.concat([unsignedVarint(options.messageIndex), payload]);
  const compression = options.zlib ? GLUE_COMPRESSION.zlib : GLUE_COMPRESSION.none;
  return Buffer.concat([
    Buffer.from([GLUE_HEADER_VERSION, compression]),
    uuid,
    options.zlib ? deflateSync(body) : body,
  ]);
}

/**
 * Protobuf's sint and Avro's int and long: zigzag, then a varint
 * (https://protobuf.dev/programming-guides/encoding/#signed-ints). A bigint for the 64-bit range.
 */
export function zigzagVarint(value: number | bigint): Buffer {
  const n = BigInt(value);
  return unsignedVarint(n >= 0n ? n * 2n : -n * 2n - 1n);
}

/** Base-128, least significant group first; a negative number as its 64-bit two's complement. */
export function unsignedVarint(value: number | bigint): Buffer {
  const bytes: number[] = [];
  let rest = BigInt.asUintN(64, BigInt(value));
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Buffer.from(bytes);
}
