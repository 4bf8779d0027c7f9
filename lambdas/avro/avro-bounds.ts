/**
 * Avro's binary encoding walked against the schema before avsc decodes it
 * (https://avro.apache.org/docs/1.11.1/specification/#binary-encoding). avsc reads an array or map block
 * count and then loops on it, allocating as it goes (`new Array(n)`), and notices a value cut short only
 * at the end: six bytes claiming 2^60 `null`s exhaust the heap. This walk reads positions and counts only,
 * checks every length against the bytes left, every block count against what the bytes left can hold and
 * against the value's decode budget (decode-budget.ts), and the nesting, so avsc only ever sees a value
 * whose every count is possible. What it passes, avsc decodes; what avsc then refuses (a union or enum
 * index it lacks, trailing bytes) keeps avsc's verdict.
 */
import avro from 'avsc';
import { BUFFER_ITEMS, BudgetMeter, type DecodeBudget, OBJECT_ITEMS } from '../core/decode-budget.js';

/** Avro's int and long are zigzag varints of at most 10 bytes (64 bits). */
const MAX_VARINT_BYTES = 10;

/** Why the payload cannot be decoded within the budget, or undefined when avsc may decode it. */
export function avroBoundsProblem(
  type: avro.Type,
  payload: Buffer,
  budget: DecodeBudget,
): string | undefined {
  const walk = new AvroWalk(payload, new BudgetMeter(payload.length, budget));
  try {
    walk.value(type, 0);
    return undefined;
  } catch (error) {
    if (error instanceof OutOfBounds) return error.message;
    throw error;
  }
}

/** Thrown inside the walk only, to unwind it; its message is the problem (no payload bytes in it). */
class OutOfBounds extends Error {}

class AvroWalk {
  #position = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly meter: BudgetMeter,
  ) {}

  value(type: avro.Type, depth: number): void {
    const { types } = avro;
    if (type instanceof types.LogicalType) this.value(type.underlyingType, depth);
    else if (type instanceof types.NullType) return;
    else if (type instanceof types.BooleanType) this.skip(1);
    else if (type instanceof types.IntType || type instanceof types.LongType) this.varint();
    else if (type instanceof types.FloatType) this.skip(4);
    else if (type instanceof types.DoubleType) this.skip(8);
    else if (type instanceof types.StringType) this.skip(this.length('length'));
    else if (type instanceof types.BytesType || type instanceof types.FixedType) {
      // A Buffer each, however few its bytes (a fixed may have none).
      this.take(BUFFER_ITEMS);
      this.skip(type instanceof types.FixedType ? type.size : this.length('length'));
    } else if (type instanceof types.EnumType) this.index(type.symbols.length);
    else if (type instanceof types.UnwrappedUnionType || type instanceof types.WrappedUnionType) {
      const branches = (type as unknown as { types: avro.Type[] }).types;
      this.value(branches[this.index(branches.length)] as avro.Type, depth);
    } else if (type instanceof types.RecordType) {
      this.enter(depth + 1);
      this.take(OBJECT_ITEMS + type.fields.length);
      for (const field of type.fields) this.value(field.type, depth + 1);
    } else if (type instanceof types.ArrayType) this.blocks(depth, [type.itemsType]);
    else if (type instanceof types.MapType) this.blocks(depth, [STRING, type.valuesType as avro.Type]);
    else throw new OutOfBounds(`a type the bounds check does not know (${type.typeName})`);
  }

  /**
   * An array's or map's blocks: a count, (when negative) its byte size, that many items; 0 ends it. Not a
   * level of nesting: only a record can hold itself, so only records nest without a bound in the schema.
   */
  private blocks(depth: number, itemParts: readonly avro.Type[]): void {
    this.take(OBJECT_ITEMS);
    const itemBytes = itemParts.reduce((sum, part) => sum + minimumBytes(part), 0);
    for (;;) {
      const start = this.#position;
      let count = this.varint();
      if (count === 0) return;
      if (count < 0) {
        count = -count;
        this.length('block size');
      }
      if (count * itemBytes > this.left()) {
        throw new OutOfBounds(
          `an array or map block at byte ${start} counts more items than the ${this.bytes.length}-byte body can hold`,
        );
      }
      this.take(count);
      for (let item = 0; item < count; item += 1) {
        for (const part of itemParts) this.value(part, depth);
      }
    }
  }

  private enter(depth: number): void {
    const problem = this.meter.enter(depth);
    if (problem !== undefined) throw new OutOfBounds(problem);
  }

  private take(items: number): void {
    const problem = this.meter.take(items);
    if (problem !== undefined) throw new OutOfBounds(problem);
  }

  /** A union branch or enum symbol index: one the schema has. */
  private index(count: number): number {
    const index = this.varint();
    if (index < 0 || index >= count) throw new OutOfBounds('the bytes do not fit the schema');
    return index;
  }

  /** A byte count (a string's or bytes' length, a block's size): within the bytes left. */
  private length(what: string): number {
    const start = this.#position;
    const length = this.varint();
    if (length < 0 || length > this.left()) {
      throw new OutOfBounds(
        `it ends early: a ${what} at byte ${start} runs past the end of the ${this.bytes.length}-byte body`,
      );
    }
    return length;
  }

  private skip(bytes: number): void {
    if (bytes > this.left()) throw new OutOfBounds('it ends early');
    this.#position += bytes;
  }

  private left(): number {
    return this.bytes.length - this.#position;
  }

  /** A zigzag varint as a number (exact up to 2^53, which every bound it is compared with is below). */
  private varint(): number {
    const start = this.#position;
    let unsigned = 0;
    for (let index = 0; index < MAX_VARINT_BYTES; index += 1) {
      const byte = this.bytes[this.#position];
      if (byte === undefined) throw new OutOfBounds('it ends early');
      this.#position += 1;
      unsigned += (byte & 0x7f) * 2 ** (7 * index);
      if ((byte & 0x80) === 0) return unsigned % 2 === 0 ? unsigned / 2 : -(unsigned + 1) / 2;
    }
    throw new OutOfBounds(`a varint at byte ${start} is longer than ${MAX_VARINT_BYTES} bytes`);
  }
}

const STRING = avro.Type.forSchema('string');

/** The fewest bytes of each type, once per type: a schema never changes. */
const MINIMUM_BYTES = new WeakMap<avro.Type, number>();

/** The fewest bytes a value of the type is encoded in; 0 on a cycle (a lower bound is enough). */
function minimumBytes(type: avro.Type): number {
  const known = MINIMUM_BYTES.get(type);
  if (known !== undefined) return known;
  MINIMUM_BYTES.set(type, 0);
  const { types } = avro;
  let bytes: number;
  if (type instanceof types.LogicalType) bytes = minimumBytes(type.underlyingType);
  else if (type instanceof types.NullType) bytes = 0;
  else if (type instanceof types.FloatType) bytes = 4;
  else if (type instanceof types.DoubleType) bytes = 8;
  else if (type instanceof types.FixedType) bytes = type.size;
  else if (type instanceof types.RecordType)
    bytes = type.fields.reduce((sum, field) => sum + minimumBytes(field.type), 0);
  // Every other type starts with at least one byte: a varint, a length, a count or a union index.
  else bytes = 1;
  MINIMUM_BYTES.set(type, bytes);
  return bytes;
}
