/**
 * The schema registries' wire formats, recognised and stripped before Avro or Protobuf decodes a value
 * (docs/design.md#value-formats). Pure: no Avro or Protobuf library here.
 *
 * - Confluent (https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format):
 *   magic byte 0, the schema id (4 bytes, big-endian), the payload; for Protobuf the payload starts with
 *   the message indexes (a zigzag varint count, then that many zigzag varints; the common `[0]` is one
 *   byte 0).
 * - AWS Glue Schema Registry (https://github.com/awslabs/aws-glue-schema-registry, `AWSSchemaRegistryConstants`:
 *   HEADER_VERSION_BYTE 3, COMPRESSION_BYTE 5 (zlib) or COMPRESSION_DEFAULT_BYTE 0, SCHEMA_VERSION_ID_SIZE
 *   16): header version 3, compression, the 16-byte schema version UUID, the payload; for Protobuf the
 *   payload starts with one unsigned varint, the message's index in its file (`ProtobufWireFormatEncoder`).
 * - With the event source mapping's schema registry integration and `EventRecordFormat: SOURCE`, Lambda
 *   removes the header itself and says so with the record's `valueSchemaMetadata`
 *   (https://docs.aws.amazon.com/lambda/latest/api/API_KafkaSchemaRegistryConfig.html); a Protobuf
 *   payload still starts with its message indexes, which Powertools' Kafka utility also skips there.
 * - Refused (the value is `undecodable`): a first byte neither header starts with (`bad magic byte`), a
 *   header cut short, a zlib body that does not inflate or inflates past MAX_INFLATED_BYTES. Message
 *   indexes are skipped, not checked: the type is the one the consumer gives in code.
 */
import { inflateSync } from 'node:zlib';
import type { SchemaMetadata } from './value-format.js';

/** What a format expects before its encoding, when Lambda has not removed it already. */
export type Framing =
  /** A Confluent or a Glue header, told apart by the first byte; any other first byte is refused. */
  | 'schema-registry'
  /** The bare encoding: a producer writing without a registry. */
  | 'none';

export type Registry = 'confluent' | 'glue';

export type Unframed =
  | {
      readonly ok: true;
      readonly payload: Buffer;
      /** Whose header the payload came under (here or before Lambda removed it); undefined: none. */
      readonly registry: Registry | undefined;
      /** The Confluent schema id or the Glue schema version UUID, when known. */
      readonly schemaId: string | undefined;
    }
  | { readonly ok: false; readonly error: string };

export const CONFLUENT_MAGIC_BYTE = 0;
export const CONFLUENT_HEADER_BYTES = 5;
export const GLUE_HEADER_VERSION = 3;
export const GLUE_COMPRESSION = { none: 0, zlib: 5 } as const;
export const GLUE_HEADER_BYTES = 18;
/**
 * A zlib payload stops inflating here: Lambda's invocation payload is at most 6 MB, so a larger value
 * is a compression bomb, not an event.
 */
export const MAX_INFLATED_BYTES = 16 * 1024 * 1024;

/** The payload under its header, or why there is none. */
export function unframe(
  value: Buffer | null,
  framing: Framing,
  metadata: SchemaMetadata | undefined,
): Unframed {
  if (value === null) return { ok: false, error: 'value is null' };
  if (metadata?.schemaId !== undefined) {
    // Lambda validated the value against the registry and delivered it without its header (SOURCE).
    return {
      ok: true,
      payload: value,
      registry: registryOfId(metadata.schemaId),
      schemaId: metadata.schemaId,
    };
  }
  if (framing === 'none') return { ok: true, payload: value, registry: undefined, schemaId: undefined };
  if (value.length === 0) return { ok: false, error: 'value is empty: no schema registry header' };
  const magic = value[0];
  if (magic === CONFLUENT_MAGIC_BYTE) return confluent(value);
  if (magic === GLUE_HEADER_VERSION) return glue(value);
  return {
    ok: false,
    error: `bad magic byte ${hex(magic ?? 0)}: not a Confluent (0x00) or Glue (0x03) schema registry header`,
  };
}

function confluent(value: Buffer): Unframed {
  if (value.length < CONFLUENT_HEADER_BYTES) {
    return {
      ok: false,
      error: `truncated Confluent header: ${value.length} of ${CONFLUENT_HEADER_BYTES} bytes`,
    };
  }
  return {
    ok: true,
    payload: value.subarray(CONFLUENT_HEADER_BYTES),
    registry: 'confluent',
    schemaId: String(value.readUInt32BE(1)),
  };
}

function glue(value: Buffer): Unframed {
  if (value.length < GLUE_HEADER_BYTES) {
    return { ok: false, error: `truncated Glue header: ${value.length} of ${GLUE_HEADER_BYTES} bytes` };
  }
  const compression = value[1];
  const schemaId = uuidOf(value.subarray(2, GLUE_HEADER_BYTES));
  const body = value.subarray(GLUE_HEADER_BYTES);
  if (compression === GLUE_COMPRESSION.none) return { ok: true, payload: body, registry: 'glue', schemaId };
  if (compression !== GLUE_COMPRESSION.zlib) {
    return {
      ok: false,
      error: `unknown Glue compression byte ${hex(compression ?? 0)} (0x00 none, 0x05 zlib)`,
    };
  }
  try {
    const payload = inflateSync(body, { maxOutputLength: MAX_INFLATED_BYTES });
    return { ok: true, payload, registry: 'glue', schemaId };
  } catch (error) {
    const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    return {
      ok: false,
      error: tooLarge
        ? `Glue payload inflates past ${MAX_INFLATED_BYTES} bytes`
        : 'Glue payload is not valid zlib data',
    };
  }
}

/** A Confluent schema id is a number; a Glue schema version id is a UUID (as Powertools tells them apart). */
function registryOfId(schemaId: string): Registry {
  return /^\d+$/.test(schemaId) ? 'confluent' : 'glue';
}

export type MessageIndexes =
  | { readonly ok: true; readonly indexes: readonly number[]; readonly payload: Buffer }
  | { readonly ok: false; readonly error: string };

/** A Confluent file names at most this many nested messages on a path; a longer count is garbage. */
const MAX_MESSAGE_INDEXES = 64;

/**
 * Strips the message indexes a registry puts before a Protobuf payload (see the header comment): the
 * consumer names its message type in code, so they are read only to be skipped.
 */
export function stripMessageIndexes(payload: Buffer, registry: Registry | undefined): MessageIndexes {
  if (registry === undefined) return { ok: true, indexes: [], payload };
  const reader = new VarintReader(payload);
  if (registry === 'glue') {
    const index = reader.unsigned();
    if (index === undefined) return { ok: false, error: 'truncated Glue message index' };
    return { ok: true, indexes: [index], payload: payload.subarray(reader.position) };
  }
  const count = reader.zigzag();
  if (count === undefined) return { ok: false, error: 'truncated Confluent message indexes' };
  // The common case, the file's first message, is written as a count of 0.
  if (count === 0) return { ok: true, indexes: [0], payload: payload.subarray(reader.position) };
  if (count < 0 || count > MAX_MESSAGE_INDEXES) {
    return { ok: false, error: `Confluent message index count ${count} is not 0 to ${MAX_MESSAGE_INDEXES}` };
  }
  const indexes: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const index = reader.zigzag();
    if (index === undefined || index < 0) return { ok: false, error: 'truncated Confluent message indexes' };
    indexes.push(index);
  }
  return { ok: true, indexes, payload: payload.subarray(reader.position) };
}

/** Base-128 varints of at most 32 bits (https://protobuf.dev/programming-guides/encoding/#varints). */
class VarintReader {
  position = 0;
  constructor(private readonly bytes: Buffer) {}

  unsigned(): number | undefined {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.bytes[this.position];
      if (byte === undefined) return undefined;
      this.position += 1;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result <= 0xffffffff ? result : undefined;
    }
    return undefined;
  }

  zigzag(): number | undefined {
    const raw = this.unsigned();
    if (raw === undefined) return undefined;
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }
}

function uuidOf(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function hex(byte: number): string {
  return `0x${byte.toString(16).padStart(2, '0')}`;
}
