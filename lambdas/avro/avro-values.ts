/**
 * Avro values (`msk-inbox/avro`): the schema given in code, as Powertools' Kafka utility takes it; the
 * registry's header recognised and stripped first (wire-format.ts). A module of its own, so only a
 * consumer that imports it bundles avsc (docs/design.md#value-formats).
 */
import avro from 'avsc';
import { type DecodeBudget, resolveDecodeBudget } from '../core/decode-budget.js';
import { type ParsedValue, plainValue, type ValueFormat, wideInteger } from '../core/value-format.js';
import { type Framing, unframe } from '../core/wire-format.js';
import { avroBoundsProblem } from './avro-bounds.js';

export interface AvroValuesOptions {
  /** The writer's schema: an Avro schema as JSON text or as its object. */
  readonly schema: string | avro.Schema;
  /**
   * `schema-registry`: a Confluent or Glue header precedes each value (unless Lambda removed it, see
   * wire-format.ts); `none`: bare Avro binary.
   * @default 'schema-registry'
   */
  readonly framing?: Framing;
  /**
   * What one value may cost to decode (decode-budget.ts): raise `itemsPerByte` only for values that
   * legitimately hold many empty items, such as long arrays of `null`.
   * @default DECODE_BUDGET
   */
  readonly decodeBudget?: Partial<DecodeBudget>;
}

/** The value format of a consumer whose values are Avro records of one schema. */
export function avroValues(options: AvroValuesOptions): ValueFormat {
  const schema =
    typeof options.schema === 'string' ? (JSON.parse(options.schema) as avro.Schema) : options.schema;
  // Built here, not at import: importing the module costs nothing until a consumer asks for Avro.
  const type = avro.Type.forSchema(schema, { registry: { long: wideLong() } });
  const framing = options.framing ?? 'schema-registry';
  const budget = resolveDecodeBudget(options.decodeBudget);
  return {
    label: 'Avro',
    // A record's fields are the decoded value's; another top-level type (a union) has none to check.
    ...(type instanceof avro.types.RecordType ? { fieldNames: new Set(type.fields.map((f) => f.name)) } : {}),
    parse(value, metadata): ParsedValue {
      const unframed = unframe(value, framing, metadata);
      if (!unframed.ok) return { ok: false, error: unframed.error, reason: 'undecodable' };
      const notAvro = (kind: string): ParsedValue => ({
        ok: false,
        error: `value is not Avro of the schema (${kind})`,
        reason: 'undecodable',
      });
      // Checked before avsc allocates anything for a count the bytes claim (avro-bounds.ts).
      const outOfBounds = avroBoundsProblem(type, unframed.payload, budget);
      if (outOfBounds !== undefined) return notAvro(outOfBounds);
      try {
        return { ok: true, value: plainValue(type.fromBuffer(unframed.payload)) };
      } catch (error) {
        return notAvro(avroErrorKind(error));
      }
    },
  };
}

/**
 * Avro's `long` as a number when it is a safe integer, else a bigint (value-format.ts#wideInteger): avsc's
 * own refuses a long past 2^53 ("potential precision loss").
 */
function wideLong(): avro.types.LongType {
  return avro.types.LongType.__with({
    fromBuffer: (bytes: Buffer) => wideInteger(bytes.readBigInt64LE()),
    toBuffer: (value: number | bigint) => {
      const bytes = Buffer.alloc(8);
      bytes.writeBigInt64LE(BigInt(value));
      return bytes;
    },
    fromJSON: (json: unknown) => wideInteger(BigInt(json as number | string)),
    toJSON: (value: number | bigint) => (typeof value === 'bigint' ? value.toString() : value),
    isValid: (value: unknown) =>
      (typeof value === 'number' && Number.isSafeInteger(value)) ||
      (typeof value === 'bigint' && BigInt.asIntN(64, value) === value),
    compare: (a: number | bigint, b: number | bigint) => (a === b ? 0 : a < b ? -1 : 1),
  });
}

/**
 * avsc's failure, by kind only: some of its messages quote the value ("invalid union index"... with the
 * datum), and payload bytes never reach logs or quarantine rows.
 */
function avroErrorKind(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  if (/truncated/.test(message)) return 'it ends early';
  if (/trailing data/.test(message)) return 'bytes left after the record';
  return 'the bytes do not fit the schema';
}

// The types its options and result name, so a consumer importing only this entry can name them too.
export type { DecodeBudget } from '../core/decode-budget.js';
export type { ParsedValue, SchemaMetadata, ValueFormat } from '../core/value-format.js';
export type { Framing } from '../core/wire-format.js';
