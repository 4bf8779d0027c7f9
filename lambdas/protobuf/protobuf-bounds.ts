/**
 * A decoded Protobuf message measured against the value's decode budget (decode-budget.ts) before
 * `toObject` builds the plain value from it.
 *
 * protobufjs (8.x) already checks what the bytes claim while decoding: a length-delimited field (string,
 * bytes, nested message, packed run, map entry) past the bytes left is refused before it is read
 * (Reader#bytes, Reader#string, the packed readers and the generated decoder all compare the end with
 * the reader's length first), each element costs at least one byte, and nesting stops at
 * Reader.recursionLimit (100). What the bytes do not bound is the conversion: `toObject` with `defaults`
 * gives every message every field of its type, so a run of two-byte empty messages of a type with 50
 * fields becomes 25 items a byte (measured: 112 MB of heap from a 1 MB value, twice that with the plain
 * copy). Counting the decoded tree first costs one pass over what decoding already built.
 */
import type { IConversionOptions } from 'protobufjs';
import { BUFFER_ITEMS, type BudgetMeter, OBJECT_ITEMS } from '../core/decode-budget.js';

/** A message class as protobufjs makes them, reflected (`Type#ctor`) or generated: static toObject. */
interface MessageClass {
  new (): object;
  toObject(message: object, options: IConversionOptions): Record<string, unknown>;
}

/**
 * For a format converting with `conversion`: why a decoded message's plain form would exceed the budget,
 * or undefined.
 */
export function protobufExpansionCheck(
  conversion: IConversionOptions,
): (message: object, meter: BudgetMeter) => string | undefined {
  const itemsByClass = new WeakMap<MessageClass, number>();
  /** A message's own items: its object and what toObject fills in whatever the bytes say (an empty [] or {} too). */
  const itemsOf = (type: MessageClass): number => {
    let items = itemsByClass.get(type);
    if (items === undefined) {
      const defaults = Object.values(type.toObject(new type(), conversion));
      const objects = defaults.filter((value) => typeof value === 'object' && value !== null).length;
      items = OBJECT_ITEMS * (1 + objects) + defaults.length;
      itemsByClass.set(type, items);
    }
    return items;
  };
  const measure = (node: unknown, depth: number, meter: BudgetMeter): string | undefined => {
    const type = messageClassOf(node);
    if (type === undefined) return undefined;
    const problem = meter.enter(depth) ?? meter.take(itemsOf(type));
    if (problem !== undefined) return problem;
    for (const field of Object.values(node as object)) {
      const single = messageClassOf(field) !== undefined;
      const items = single ? [field] : elementsOf(field);
      if (items === undefined) continue;
      // A message field is one of the fields counted above; a repeated or a map field adds its elements.
      // A repeated bytes field's elements are a Buffer each.
      const buffers = single ? 0 : items.filter((item) => item instanceof Uint8Array).length;
      const nested =
        (single ? undefined : meter.take(items.length + buffers * BUFFER_ITEMS)) ??
        firstOf(items, (item) => measure(item, depth + 1, meter));
      if (nested !== undefined) return nested;
    }
    return undefined;
  };
  return (message, meter) => measure(message, 1, meter);
}

/** The message class of a decoded message; undefined for anything else (bytes, a Long, a plain object). */
function messageClassOf(node: unknown): MessageClass | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const type: unknown = node.constructor;
  return typeof type === 'function' && typeof (type as Partial<MessageClass>).toObject === 'function'
    ? (type as MessageClass)
    : undefined;
}

function firstOf<T>(items: readonly unknown[], problemOf: (item: unknown) => T | undefined): T | undefined {
  for (const item of items) {
    const problem = problemOf(item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A repeated field's elements or a map field's values; undefined for any other field. */
function elementsOf(field: unknown): readonly unknown[] | undefined {
  if (Array.isArray(field)) return field;
  if (typeof field === 'object' && field !== null && Object.getPrototypeOf(field) === Object.prototype) {
    return Object.values(field);
  }
  return undefined;
}
