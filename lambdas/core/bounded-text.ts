/**
 * Text from a hostile record, made safe to store: bounded in UTF-8 bytes (what DynamoDB counts, not
 * UTF-16 characters), always well-formed, and built without recursion, so no size, depth, cycle or
 * ill-formed string can make it throw or overflow the stack.
 */
import { createHash } from 'node:crypto';

/** `text` (made well-formed) cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const wellFormed = text.toWellFormed();
  // A UTF-16 unit is at most 3 UTF-8 bytes: short strings skip the encoding.
  if (wellFormed.length * 3 <= maxBytes) return wellFormed;
  const bytes = Buffer.from(wellFormed, 'utf8');
  if (bytes.length <= maxBytes) return wellFormed;
  let end = Math.max(0, maxBytes);
  // Back off continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

export interface BoundedText {
  readonly text: string;
  /** True when the original did not fit (or was not well-formed text and was repaired). */
  readonly cut: boolean;
}

/** A string bounded by UTF-8 bytes, with whether anything was cut or repaired. */
export function boundedString(text: string, maxBytes: number): BoundedText {
  const bounded = utf8Prefix(text, maxBytes);
  return { text: bounded, cut: bounded !== text };
}

/**
 * Any value as JSON text of at most `maxBytes` UTF-8 bytes (cut where the budget ends, then flagged).
 * Iterative: depth costs heap, not stack. Cycles are written as "[cycle]"; values JSON cannot express
 * (undefined, functions, symbols, NaN) as null.
 */
export function boundedJson(value: unknown, maxBytes: number): BoundedText {
  const chunks: string[] = [];
  let used = 0;
  let cut = false;
  walkJson(value, (chunk) => {
    const bytes = Buffer.byteLength(chunk, 'utf8');
    if (used + bytes <= maxBytes) {
      chunks.push(chunk);
      used += bytes;
      return true;
    }
    chunks.push(utf8Prefix(chunk, maxBytes - used));
    cut = true;
    return false;
  });
  return { text: chunks.join(''), cut };
}

/** SHA-256 (hex) of a value's whole JSON form: equal for equal records, whatever their size or depth. */
export function hashJson(value: unknown): string {
  const hash = createHash('sha256');
  walkJson(value, (chunk) => {
    hash.update(chunk, 'utf8');
    return true;
  });
  return hash.digest('hex');
}

/** SHA-256 (hex) of a string's UTF-16 code units: distinct strings, even ill-formed ones, never collide. */
export function hashString(text: string): string {
  return createHash('sha256').update(Buffer.from(text, 'utf16le')).digest('hex');
}

type Frame =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'close'; readonly text: string; readonly of: object };

/** Emits `value` as JSON text in chunks, depth-first with an explicit stack; stops when `emit` says so. */
function walkJson(root: unknown, emit: (chunk: string) => boolean): void {
  const ancestors = new Set<object>();
  const stack: Frame[] = [{ kind: 'value', value: root }];
  try {
    while (stack.length > 0) {
      const frame = stack.pop() as Frame;
      if (frame.kind !== 'value') {
        if (frame.kind === 'close') ancestors.delete(frame.of);
        if (!emit(frame.text)) return;
        continue;
      }
      const { value } = frame;
      if (typeof value !== 'object' || value === null) {
        if (!emit(scalarJson(value))) return;
        continue;
      }
      if (ancestors.has(value)) {
        if (!emit('"[cycle]"')) return;
        continue;
      }
      ancestors.add(value);
      const array = Array.isArray(value);
      if (!emit(array ? '[' : '{')) return;
      stack.push({ kind: 'close', text: array ? ']' : '}', of: value });
      const entries = array ? value.map((item, index) => [index, item] as const) : Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [name, item] = entries[index] as readonly [string | number, unknown];
        stack.push({ kind: 'value', value: item });
        if (!array) stack.push({ kind: 'text', text: `${JSON.stringify(name)}:` });
        if (index > 0) stack.push({ kind: 'text', text: ',' });
      }
    }
  } catch {
    // A getter or proxy that throws: what was written stands, the rest is marked.
    emit('"[unserializable]"');
  }
}

function scalarJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      // Lone surrogates come out escaped (\ud800): the text is always well-formed.
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return String(value);
    case 'bigint':
      return JSON.stringify(value.toString());
    default:
      return 'null';
  }
}
