/**
 * Lambda's event filter patterns: the EventBridge pattern syntax, limited to the rules Lambda's filter
 * syntax table lists (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html#filtering-syntax),
 * matched as AWS's engine matches them (aws/event-ruler; docs/aws-facts.md#event-filtering). A pattern is
 * compiled once, refusing by name every rule Lambda does not take, what the engine refuses and what it
 * would decide by accident (below), and then matched against events. The construct checks its `filters`
 * with it at synth; the ESM emulator filters with it: one definition of the rules.
 *
 * Matching: the event is its leaves (filter-event.ts). Every field of a pattern must match (and); a
 * field's list matches when any of its rules does (or); `$or` takes any of its branches. A field matches
 * when one of its leaves passes (an array's elements, arrays within arrays too, are the field's leaves),
 * and `exists: false` when it has no leaf at all (a missing field, an object, `[]`). The leaves chosen for
 * the fields of one match must come from the same element of every array they share: `{ a: [1], b: [2] }`
 * under an array matches an element holding both, not one holding a and another b.
 *
 * Refused as ambiguous, because the engine decides them by how it happens to be built (the order of
 * field names, its rule-overriding option, its path joining): a field name with a dot; a field named both
 * beside `$or` and inside a branch; `exists: false` beside another field under a shared nested object,
 * which may be an array of objects in some events.
 */
import { type EventLeaf, FlatEvent, flattenValue, joinPath } from './filter-event.js';
import {
  compileRule,
  describe,
  type FieldRule,
  FilterPatternError,
  isPlainObject,
  type LeafTest,
} from './filter-rules.js';

export { FilterPatternError, isPlainObject } from './filter-rules.js';

/** A compiled pattern: whether an event (a flat event, or any JavaScript value) matches it. */
export type CompiledPattern = (event: unknown) => boolean;

/**
 * Names event-ruler keeps for operators and refuses as field names inside `$or` (its
 * `RESERVED_FIELD_NAMES_IN_OR_RELATIONSHIP`): without `$or` they are ordinary names.
 */
const RESERVED_IN_OR = new Set([
  ...[
    'exactly',
    'equals-ignore-case',
    'prefix',
    'suffix',
    'anything-but',
    'exists',
    'wildcard',
    'numeric',
    'cidr',
  ],
  ...['=', '<', '<=', '>', '>=', 'regex', 'not-wildcard', 'not-equals-ignore-case'],
  ...['date-after', 'date-on-or-after', 'date-before', 'date-on-or-before', 'in-date-range'],
  ...['ip-address-in-range', 'ip-address-not-in-range'],
]);

/**
 * AWS refuses a pattern whose `$or`s make "over 1000 rule combinations"
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html).
 */
const MAX_PATTERN_ALTERNATIVES = 1_000;

interface Positive {
  readonly path: string;
  readonly label: string;
  readonly tests: readonly LeafTest[];
}

/** One way to match: every positive field has a leaf passing one of its tests, every absent one none. */
interface Alternative {
  readonly positives: readonly Positive[];
  readonly absent: readonly { readonly path: string; readonly label: string }[];
}

/** Compiles a pattern object, or throws a FilterPatternError naming the path and the rule it refuses. */
export function compilePattern(pattern: unknown, label = ''): CompiledPattern {
  return matcherOf(checked(compileObject(pattern, '', label, false)));
}

/** A list of rules on the event itself (a Kafka value that is a plain string). */
export function compileRootRules(rules: unknown, label: string): CompiledPattern {
  return matcherOf(checked(compileField(rules, '', label)));
}

/** The problems with a pattern, empty when Lambda's rules accept it. */
export function patternProblems(pattern: unknown, label = ''): string[] {
  try {
    compilePattern(pattern, label);
    return [];
  } catch (error) {
    if (error instanceof FilterPatternError) return [error.message];
    throw error;
  }
}

function compileObject(pattern: unknown, path: string, label: string, inOr: boolean): Alternative[] {
  if (!isPlainObject(pattern) || Object.keys(pattern).length === 0) {
    throw new FilterPatternError(`${label || 'the pattern'} must be a non-empty object of fields`);
  }
  let alternatives: Alternative[] = [{ positives: [], absent: [] }];
  for (const [name, spec] of Object.entries(pattern)) {
    const at = label === '' ? name : `${label}.${name}`;
    let field: Alternative[];
    if (name === '$or') field = compileOr(spec, path, at);
    else {
      if (name.includes('.')) {
        throw new FilterPatternError(
          `${at}: a field name with a dot is ambiguous: AWS's matcher joins nested names with dots, so "${name}" would also match the nested fields ${name.split('.').join(' › ')}`,
        );
      }
      if (inOr && RESERVED_IN_OR.has(name)) {
        throw new FilterPatternError(
          `${at}: "${name}" names an operator, and AWS's matcher refuses it as a field name inside $or`,
        );
      }
      const fieldPath = joinPath(path, name);
      if (Array.isArray(spec)) field = compileField(spec, fieldPath, at);
      else if (isPlainObject(spec)) field = compileObject(spec, fieldPath, at, inOr);
      else
        throw new FilterPatternError(
          `${at} must be a list of rules or an object of fields, not ${describe(spec)}`,
        );
    }
    refuseCombinationsPast(alternatives.length * field.length, at);
    alternatives = alternatives.flatMap((left) =>
      field.map((right) => ({
        positives: [...left.positives, ...right.positives],
        absent: [...left.absent, ...right.absent],
      })),
    );
  }
  return alternatives;
}

function compileOr(spec: unknown, path: string, at: string): Alternative[] {
  if (!Array.isArray(spec) || spec.length < 2)
    throw new FilterPatternError(`${at} must list at least two patterns`);
  const alternatives: Alternative[] = [];
  for (const [index, branch] of spec.entries()) {
    alternatives.push(...compileObject(branch, path, `${at}[${index}]`, true));
    refuseCombinationsPast(alternatives.length, at);
  }
  return alternatives;
}

/** Refused before they are made: a 4,096-character pattern can ask for millions. */
function refuseCombinationsPast(combinations: number, at: string): void {
  if (combinations > MAX_PATTERN_ALTERNATIVES) {
    throw new FilterPatternError(
      `${at}: the pattern's $or branches multiply to more than ${MAX_PATTERN_ALTERNATIVES} combinations, which AWS refuses`,
    );
  }
}

/** A field's list: one alternative with its tests when it has any, one where it is absent when asked. */
function compileField(rules: unknown, path: string, at: string): Alternative[] {
  if (!Array.isArray(rules)) throw new FilterPatternError(`${at} must be a list of rules`);
  if (rules.length === 0) throw new FilterPatternError(`${at} has an empty list: give at least one rule`);
  const compiled: FieldRule[] = rules.map((rule, index) => compileRule(rule, `${at}[${index}]`));
  const tests = compiled.flatMap((rule) => (rule.kind === 'leaf' ? [rule.test] : []));
  return [
    ...(tests.length > 0 ? [{ positives: [{ path, label: at, tests }], absent: [] }] : []),
    ...(compiled.some((rule) => rule.kind === 'absent')
      ? [{ positives: [], absent: [{ path, label: at }] }]
      : []),
  ];
}

/** Refuses what the engine would decide by accident (see the header), then returns the alternatives. */
function checked(alternatives: readonly Alternative[]): readonly Alternative[] {
  for (const { positives, absent } of alternatives) {
    const named = [...positives, ...absent];
    const seen = new Map<string, string>();
    for (const { path, label } of named) {
      const other = seen.get(path);
      if (other !== undefined) {
        throw new FilterPatternError(
          `${label}: the field is named twice (${other} and ${label}, beside $or and inside a branch): AWS's matcher lets one replace the other; name it in the branches only`,
        );
      }
      seen.set(path, label);
    }
    for (const gone of absent) {
      const beside = positives.find((positive) => sharedAncestor(gone.path, positive.path));
      if (beside !== undefined) {
        throw new FilterPatternError(
          `${gone.label}: exists: false beside ${beside.label} under one nested object is ambiguous: where that object is an array of objects, AWS's matcher decides it by the order of the field names; test the absence in the consumer instead`,
        );
      }
    }
  }
  return alternatives;
}

/** Whether two paths lie under one nested object (not the event itself), which may be an array's element. */
function sharedAncestor(a: string, b: string): boolean {
  const [first, second] = [a.split('.').slice(0, -1), b.split('.').slice(0, -1)];
  return first.length > 0 && second.length > 0 && first[0] === second[0];
}

function matcherOf(alternatives: readonly Alternative[]): CompiledPattern {
  return (event) => {
    const flat = event instanceof FlatEvent ? event : flattenValue(event);
    return alternatives.some((alternative) => matchesAlternative(alternative, flat));
  };
}

function matchesAlternative({ positives, absent }: Alternative, event: FlatEvent): boolean {
  if (absent.some(({ path }) => event.leavesAt(path).length > 0)) return false;
  const candidates = positives.map(({ path, tests }) =>
    event.leavesAt(path).filter((leaf) => tests.some((test) => test(leaf.value))),
  );
  if (candidates.some((leaves) => leaves.length === 0)) return false;
  if (candidates.length === 1) return true;
  return new ElementSearch(candidates).found();
}

/**
 * Whether one leaf per field can be chosen from the same element of every array they share. Only arrays
 * two fields both reach can constrain a choice, so a field's leaves that differ only elsewhere (in an
 * array of their own) are one candidate, and a search that failed from a given choice of elements in the
 * arrays still ahead is not tried again: the search grows with the elements of shared arrays, not with
 * the product of every field's leaves.
 */
class ElementSearch {
  readonly #fields: readonly (readonly EventLeaf[])[];
  /** For each position in the search, the arrays a field at or after it reaches and another field too. */
  readonly #ahead: readonly ReadonlySet<number>[];
  readonly #failed = new Set<string>();

  constructor(candidates: readonly (readonly EventLeaf[])[]) {
    const reached = candidates.map((leaves) => new Set(leaves.flatMap((leaf) => arraysOf(leaf))));
    const shared = reached.map(
      (arrays, field) =>
        new Set([...arrays].filter((array) => reached.some((other, j) => j !== field && other.has(array)))),
    );
    const fields = candidates.map((leaves, field) =>
      distinctBy(leaves, (leaf) => elementKey(leaf, shared[field])),
    );
    // Fewest first: a field with one candidate pins its elements before the wide ones are tried.
    const order = fields
      .map((_, field) => field)
      .sort((a, b) => (fields[a]?.length ?? 0) - (fields[b]?.length ?? 0));
    this.#fields = order.map((field) => fields[field] ?? []);
    const sharedInOrder = order.map((field) => shared[field] ?? new Set<number>());
    this.#ahead = sharedInOrder.map(
      (_, index) => new Set(sharedInOrder.slice(index).flatMap((arrays) => [...arrays])),
    );
  }

  found(): boolean {
    return this.#choose(0, new Map());
  }

  #choose(index: number, pinned: ReadonlyMap<number, number>): boolean {
    const leaves = this.#fields[index];
    if (leaves === undefined) return true;
    const state = `${index}|${[...pinned].filter(([array]) => this.#ahead[index]?.has(array)).join(';')}`;
    if (this.#failed.has(state)) return false;
    const found = leaves.some((leaf) => {
      for (let link = leaf.elements; link !== undefined; link = link.outer) {
        const held = pinned.get(link.array);
        if (held !== undefined && held !== link.element) return false;
      }
      const next = new Map(pinned);
      for (let link = leaf.elements; link !== undefined; link = link.outer)
        next.set(link.array, link.element);
      return this.#choose(index + 1, next);
    });
    if (!found) this.#failed.add(state);
    return found;
  }
}

function arraysOf(leaf: EventLeaf): number[] {
  const arrays: number[] = [];
  for (let link = leaf.elements; link !== undefined; link = link.outer) arrays.push(link.array);
  return arrays;
}

/** A leaf's elements in the given arrays: two leaves with the same key are interchangeable in the search. */
function elementKey(leaf: EventLeaf, arrays: ReadonlySet<number> | undefined): string {
  const parts: string[] = [];
  for (let link = leaf.elements; link !== undefined; link = link.outer) {
    if (arrays?.has(link.array)) parts.push(`${link.array}:${link.element}`);
  }
  return parts.join(',');
}

function distinctBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
