/**
 * An event as AWS's filter engine sees it (aws/event-ruler, the matcher Lambda's filters share with
 * EventBridge: docs/aws-facts.md#event-filtering): its leaves only. Objects and arrays have no value of
 * their own: an object's fields are leaves under `name.field` (names joined by dots, so a key `"a.b"` and
 * a nested `a: { b }` are one path), and an array's elements, arrays within arrays included, are leaves
 * under the array's own path, each remembering which element of which array it came from, so two matched
 * fields can be required to come from the same element. A number keeps its text as sent: Lambda matches
 * exact numbers by it (300, 300.0 and 3.0e2 differ), numeric rules by its value.
 */

export type LeafValue =
  | { readonly type: 'string'; readonly value: string }
  /** `text` as sent; `value` what it reads as (Infinity past a double's range). */
  | { readonly type: 'number'; readonly text: string; readonly value: number }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'null' };

/**
 * The arrays a leaf is inside, innermost first, each with the element it is in: a chain its siblings
 * share, one link per array, so a value nested a million deep costs a million links, not their square.
 */
export interface Elements {
  /** The array's id in this event. */
  readonly array: number;
  readonly element: number;
  readonly outer: Elements | undefined;
}

export interface EventLeaf {
  readonly path: string;
  readonly value: LeafValue;
  readonly elements: Elements | undefined;
}

/** Each array a leaf is inside, with the element it is in, outermost first. */
export function elementsOf(leaf: EventLeaf): [array: number, element: number][] {
  const pairs: [number, number][] = [];
  for (let link = leaf.elements; link !== undefined; link = link.outer)
    pairs.push([link.array, link.element]);
  return pairs.reverse();
}

/** An event reduced to its leaves, by path. */
export class FlatEvent {
  readonly #byPath = new Map<string, EventLeaf[]>();

  constructor(leaves: Iterable<EventLeaf>) {
    for (const leaf of leaves) {
      const list = this.#byPath.get(leaf.path);
      if (list === undefined) this.#byPath.set(leaf.path, [leaf]);
      else list.push(leaf);
    }
  }

  leavesAt(path: string): readonly EventLeaf[] {
    return this.#byPath.get(path) ?? [];
  }
}

/** A JavaScript value (already parsed, or written in a test) as a flat event; its numbers are exact. */
export function flattenValue(value: unknown): FlatEvent {
  const leaves: EventLeaf[] = [];
  let arrays = 0;
  const stack: { value: unknown; path: string; elements: Elements | undefined }[] = [
    { value, path: '', elements: undefined },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { path, elements } = next;
    const item = next.value;
    if (Array.isArray(item)) {
      const id = arrays++;
      item.forEach((element, index) => {
        stack.push({ value: element, path, elements: { array: id, element: index, outer: elements } });
      });
    } else if (typeof item === 'object' && item !== null) {
      for (const [name, field] of Object.entries(item)) {
        stack.push({ value: field, path: joinPath(path, name), elements });
      }
    } else {
      const leaf = leafOf(item);
      if (leaf !== undefined) leaves.push({ path, value: leaf, elements });
    }
  }
  return new FlatEvent(leaves);
}

/** Parent path and name joined as event-ruler joins them: with a dot. */
export function joinPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

function leafOf(value: unknown): LeafValue | undefined {
  if (typeof value === 'string') return { type: 'string', value };
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (value === null) return { type: 'null' };
  if (typeof value === 'number') return numberLeaf(JSON.stringify(value));
  // undefined, functions, symbols, bigints: no JSON value, so no leaf.
  return undefined;
}

function numberLeaf(text: string): LeafValue {
  return { type: 'number', text, value: Number(text) };
}

/**
 * The leaves of a JSON text that JSON.parse accepts (the caller checks), numbers with their text as
 * written. An explicit stack, not recursion: a value nested a million deep is as flat as any other.
 */
export function flattenJsonText(text: string): FlatEvent {
  type Frame =
    | {
        readonly kind: 'object';
        readonly path: string;
        readonly elements: Elements | undefined;
        field: string | undefined;
      }
    | {
        readonly kind: 'array';
        readonly path: string;
        readonly elements: Elements | undefined;
        readonly id: number;
        index: number;
      };
  const leaves: EventLeaf[] = [];
  const stack: Frame[] = [];
  const scalar = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  let arrays = 0;
  let position = 0;
  while (position < text.length) {
    const char = text.charAt(position);
    const frame = stack.at(-1);
    if (' \t\n\r,:'.includes(char)) {
      position += 1;
      continue;
    }
    if (char === '}' || char === ']') {
      stack.pop();
      position += 1;
      const parent = stack.at(-1);
      if (parent?.kind === 'array') parent.index += 1;
      else if (parent !== undefined) parent.field = undefined;
      continue;
    }
    if (frame?.kind === 'object' && frame.field === undefined) {
      // A key: the string before the colon.
      scalar.lastIndex = position;
      const key = scalar.exec(text)?.[0] ?? '""';
      frame.field = JSON.parse(key) as string;
      position += key.length;
      continue;
    }
    // A value, in the place its frame gives it.
    const path =
      frame === undefined
        ? ''
        : frame.kind === 'object'
          ? joinPath(frame.path, frame.field ?? '')
          : frame.path;
    const elements: Elements | undefined =
      frame?.kind === 'array'
        ? { array: frame.id, element: frame.index, outer: frame.elements }
        : frame?.elements;
    if (char === '{' || char === '[') {
      stack.push(
        char === '{'
          ? { kind: 'object', path, elements, field: undefined }
          : { kind: 'array', path, elements, id: arrays++, index: 0 },
      );
      position += 1;
      continue;
    }
    scalar.lastIndex = position;
    const token = scalar.exec(text)?.[0] ?? '';
    if (token === '') break;
    position += token.length;
    leaves.push({ path, value: tokenLeaf(token), elements });
    if (frame?.kind === 'array') frame.index += 1;
    else if (frame !== undefined) frame.field = undefined;
  }
  return new FlatEvent(leaves);
}

function tokenLeaf(token: string): LeafValue {
  if (token.startsWith('"')) return { type: 'string', value: JSON.parse(token) as string };
  if (token === 'true' || token === 'false') return { type: 'boolean', value: token === 'true' };
  if (token === 'null') return { type: 'null' };
  return numberLeaf(token);
}
