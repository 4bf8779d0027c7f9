/**
 * Protobuf values (`msk-inbox/protobuf`): the message type given in code (a protobufjs `Type`, from
 * `protobuf.parse(...)` or `Root.lookupType`, or a class protobufjs generated), as Powertools' Kafka
 * utility takes it; the registry's header and message indexes recognised and stripped first
 * (wire-format.ts). A module of its own (docs/design.md#value-formats).
 *
 * Field names are the type's: `protobuf.parse` and `load` rename snake_case fields to camelCase
 * (`event_id` becomes `eventId`) unless given `{ keepCase: true }`, and DEDUP_FIELD and
 * KEY_SOURCE=field: name fields as decoded. With a reflected `Type`, createInboxConsumer fails at cold
 * start (ConfigError) on a DEDUP_FIELD the type lacks (the default one only when the type has it under
 * another spelling) or a KEY_SOURCE field it lacks: otherwise every record without the header would be
 * quarantined as missing-event-id (value-format.ts#valueFieldProblems). A generated class shows no
 * fields, so it is not checked.
 */
import type { IConversionOptions, Message, Reader } from 'protobufjs';
import { BudgetMeter, type DecodeBudget, resolveDecodeBudget } from '../core/decode-budget.js';
import { type ParsedValue, plainValue, type ValueFormat } from '../core/value-format.js';
import { type Framing, stripMessageIndexes, unframe } from '../core/wire-format.js';
import { protobufExpansionCheck } from './protobuf-bounds.js';

/** What the format uses of a protobufjs message type: both a reflected `Type` and a generated class have it. */
export interface ProtobufMessageType {
  decode(reader: Reader | Uint8Array): Message<object> | object;
  toObject(message: never, options?: IConversionOptions): { [key: string]: unknown };
  /** A reflected `Type`'s fields by name (the names decoded values have); a generated class has none. */
  readonly fields?: { readonly [name: string]: unknown };
}

export interface ProtobufValuesOptions {
  /** The message every value is. */
  readonly messageType: ProtobufMessageType;
  /**
   * `schema-registry`: a Confluent or Glue header and message indexes precede each value (unless Lambda
   * removed the header, see wire-format.ts); `none`: the bare message.
   * @default 'schema-registry'
   */
  readonly framing?: Framing;
  /**
   * What one value may cost to decode (decode-budget.ts): raise `itemsPerByte` only for values that
   * legitimately hold many sparse messages of a type with many fields (each is given every field).
   * @default DECODE_BUDGET
   */
  readonly decodeBudget?: Partial<DecodeBudget>;
}

/**
 * The plain object the consumer's schema sees: enums by name, every field present (proto3 has no
 * absent scalar), bytes as Uint8Array, 64-bit integers as numbers when safe, else bigints.
 */
const CONVERSION: IConversionOptions = {
  longs: BigInt,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
};

const KEEP_CASE_HINT =
  'protobufjs renames snake_case fields to camelCase unless the .proto is parsed with { keepCase: true }';

export function protobufValues(options: ProtobufValuesOptions): ValueFormat {
  const framing = options.framing ?? 'schema-registry';
  const { messageType } = options;
  const budget = resolveDecodeBudget(options.decodeBudget);
  const expansionProblem = protobufExpansionCheck(CONVERSION);
  return {
    label: 'Protobuf',
    ...(messageType.fields === undefined
      ? {}
      : { fieldNames: new Set(Object.keys(messageType.fields)), fieldNameHint: KEEP_CASE_HINT }),
    parse(value, metadata): ParsedValue {
      const unframed = unframe(value, framing, metadata);
      if (!unframed.ok) return { ok: false, error: unframed.error, reason: 'undecodable' };
      const stripped = stripMessageIndexes(unframed.payload, unframed.registry);
      if (!stripped.ok) return { ok: false, error: stripped.error, reason: 'undecodable' };
      const notProtobuf = (kind: string): ParsedValue => ({
        ok: false,
        error: `value is not a Protobuf message of the type (${kind})`,
        reason: 'undecodable',
      });
      try {
        // Converting is inside too: a message nested past the stack's depth is undecodable, not a crash.
        const message = messageType.decode(stripped.payload);
        // Measured before toObject fills every message out to every field (protobuf-bounds.ts).
        const overBudget = expansionProblem(message, new BudgetMeter(stripped.payload.length, budget));
        if (overBudget !== undefined) return notProtobuf(overBudget);
        return { ok: true, value: plainValue(messageType.toObject(message as never, CONVERSION)) };
      } catch (error) {
        return notProtobuf(protobufErrorKind(error));
      }
    },
  };
}

/** protobufjs's failure by kind only: its messages may name the bytes it met. */
function protobufErrorKind(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  if (/index out of range/.test(message)) return 'it ends early';
  if (/invalid wire type/.test(message)) return 'an invalid wire type';
  if (/invalid length encoding/.test(message)) return 'a length of 2 GB or more';
  if (/missing required/.test(message)) return 'a required field is missing';
  // protobufjs's recursion limit, or the stack of a generated class without one.
  if (/max depth exceeded|call stack/.test(message)) return 'it nests too deep';
  return 'the bytes do not fit the type';
}

// The types its options and result name, so a consumer importing only this entry can name them too.
export type { DecodeBudget } from '../core/decode-budget.js';
export type { ParsedValue, SchemaMetadata, ValueFormat } from '../core/value-format.js';
export type { Framing } from '../core/wire-format.js';
