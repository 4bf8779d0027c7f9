/**
 * What decoding one binary value may cost (docs/design.md#value-formats). A value's own bytes can claim
 * far more than they hold: an Avro array block count of 2^60 in six bytes, a Protobuf run of two-byte
 * empty messages each filled out to every field of its type. The binary formats check every count and
 * length against the bytes left before their library allocates anything, and refuse (`undecodable`) a
 * value whose decoded form would exceed this budget, so no value costs more than a fixed multiple of its
 * size in memory or time and none can take the execution environment down with the records around it.
 */
import { ConfigError } from './errors.js';

export interface DecodeBudget {
  /**
   * Avro records or Protobuf messages nested in one another (only they can hold themselves, so only they
   * nest past what the schema spells out): protoc's default recursion limit (`CodedInputStream`'s 100).
   * protobufjs stops at its own Reader.recursionLimit, also 100, whatever this says: raising it past 100
   * changes nothing for Protobuf.
   */
  readonly maxDepth: number;
  /**
   * Items per byte of the payload the decoder reads (after a Glue header's zlib, itself capped at
   * wire-format.ts MAX_INFLATED_BYTES). An item is about 8 bytes of heap: a record's or message's field
   * (Protobuf's defaults included: the value handed on has every field), an array element or a map entry,
   * and OBJECT_ITEMS more for each record, message, array or map, BUFFER_ITEMS for each bytes value.
   */
  readonly itemsPerByte: number;
  /** Items any value may have, however short: an empty message of a type with many fields. */
  readonly itemFloor: number;
}

/**
 * What a record, message, array or map costs beyond its fields or elements: measured (`npm run bench`,
 * decode cost), an object costs about 64 bytes of heap as decoded, a field or element about 8.
 */
export const OBJECT_ITEMS = 8;

/** What a bytes or fixed value costs: it becomes a Buffer, about 104 bytes of heap (measured likewise). */
export const BUFFER_ITEMS = 13;

/**
 * The default budget: about 32 bytes of heap per byte of the value as decoded, no more than the same bytes
 * of JSON can cost (nested arrays: 28, measured), with the plain copy made from it about twice that while
 * it is made. An encoding packs at most about one item a byte unless it leaves fields out (Protobuf's
 * defaults) or repeats nothing (Avro's `null`, an empty record).
 */
export const DECODE_BUDGET: DecodeBudget = { maxDepth: 100, itemsPerByte: 4, itemFloor: 1024 };

/** The items a payload of this many bytes may decode to. */
export function itemAllowance(payloadBytes: number, budget: DecodeBudget): number {
  return budget.itemFloor + budget.itemsPerByte * payloadBytes;
}

/** Problems with a budget given in code. */
function decodeBudgetProblems(budget: DecodeBudget): string[] {
  const problems: string[] = [];
  for (const name of ['maxDepth', 'itemsPerByte', 'itemFloor'] as const) {
    const value = budget[name];
    if (!Number.isInteger(value) || value < 1)
      problems.push(`decodeBudget.${name} is ${value}: give a whole number of 1 or more`);
  }
  return problems;
}

/** Counts a value's items and depth against its allowance; the first overrun is the value's problem. */
export class BudgetMeter {
  #itemsLeft: number;
  readonly #allowance: number;

  constructor(
    payloadBytes: number,
    readonly budget: DecodeBudget,
  ) {
    this.#allowance = itemAllowance(payloadBytes, budget);
    this.#itemsLeft = this.#allowance;
  }

  /** Takes `count` items; the problem when they are past the allowance. */
  take(count: number): string | undefined {
    this.#itemsLeft -= count;
    return this.#itemsLeft < 0 ? `it decodes to more than ${this.#allowance} items, its budget` : undefined;
  }

  /** The problem when a record or message at `depth` (the top-level one being at 1) is too deep. */
  enter(depth: number): string | undefined {
    return depth > this.budget.maxDepth ? `it nests deeper than ${this.budget.maxDepth} levels` : undefined;
  }
}

/** A format's budget: the default with what the consumer set in code, refused at cold start when wrong. */
export function resolveDecodeBudget(overrides: Partial<DecodeBudget> | undefined): DecodeBudget {
  const budget = { ...DECODE_BUDGET, ...overrides };
  const problems = decodeBudgetProblems(budget);
  if (problems.length > 0) throw new ConfigError(problems);
  return budget;
}
