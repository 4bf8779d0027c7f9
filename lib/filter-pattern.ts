/**
 * Lambda's event filter patterns: the EventBridge pattern syntax, limited to the rules Lambda's filter
 * syntax table lists (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html#filtering-syntax):
 * exact values (string, number, boolean, null, ""), `prefix`, `suffix`, `equals-ignore-case`, `numeric`
 * (equals and ranges), `exists`, `anything-but` (a value or a list) and `$or`. A pattern is compiled once,
 * with every rule Lambda does not take refused by name (`wildcard`, `cidr`, an `anything-but` of a
 * prefix...), and then matched against records. The construct checks its `filters` with it at synth; the
 * ESM emulator filters with it: one definition of the rules.
 *
 * Matching, as EventBridge documents it (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns.html):
 * every field of a pattern must match (and); a field's list matches when any of its rules does (or); an
 * array in the record matches when any of its elements does; a field the record lacks matches only
 * `{ "exists": false }`; `exists` looks at leaves only (an object is not a leaf).
 *
 * Why not a package: no maintained implementation of AWS event patterns is in the npm registry this
 * project installs from (the closest, eb-patterns, is not served there; serverless-offline-aws-eventbridge
 * is a Serverless Framework plugin), so this is a small matcher tested rule by rule
 * (test/unit/lib/filter-pattern.test.ts).
 */

/** A compiled pattern: whether a record (an object) matches it. */
export type CompiledPattern = (record: unknown) => boolean;

export class FilterPatternError extends Error {
  public override readonly name = 'FilterPatternError';
}

type Field = { readonly present: false } | { readonly present: true; readonly value: unknown };
type FieldTest = (field: Field) => boolean;
type ValueTest = (value: unknown) => boolean;

const NUMERIC_LOWER = new Set(['>', '>=']);
const NUMERIC_UPPER = new Set(['<', '<=']);

/** Compiles a pattern object, or throws a FilterPatternError naming the path and the rule it refuses. */
export function compilePattern(pattern: unknown): CompiledPattern {
  return compileObject(pattern, '');
}

/** The problems with a pattern, empty when Lambda's rules accept it. */
export function patternProblems(pattern: unknown): string[] {
  try {
    compilePattern(pattern);
    return [];
  } catch (error) {
    if (error instanceof FilterPatternError) return [error.message];
    throw error;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldOf(record: unknown, name: string): Field {
  return isPlainObject(record) && Object.hasOwn(record, name)
    ? { present: true, value: record[name] }
    : { present: false };
}

function compileObject(pattern: unknown, path: string): CompiledPattern {
  if (!isPlainObject(pattern) || Object.keys(pattern).length === 0) {
    throw new FilterPatternError(`${path || 'the pattern'} must be a non-empty object of fields`);
  }
  const tests: CompiledPattern[] = Object.entries(pattern).map(([name, spec]) => {
    const at = path === '' ? name : `${path}.${name}`;
    if (name === '$or') return compileOr(spec, at);
    if (Array.isArray(spec)) {
      const test = compileLeaf(spec, at);
      return (record) => test(fieldOf(record, name));
    }
    if (isPlainObject(spec)) {
      const nested = compileObject(spec, at);
      return (record) => {
        const field = fieldOf(record, name);
        if (field.present && Array.isArray(field.value))
          return field.value.some((element) => nested(element));
        return nested(field.present ? field.value : undefined);
      };
    }
    throw new FilterPatternError(
      `${at} must be a list of rules or an object of fields, not ${describe(spec)}`,
    );
  });
  return (record) => tests.every((test) => test(record));
}

function compileOr(spec: unknown, at: string): CompiledPattern {
  if (!Array.isArray(spec) || spec.length < 2) {
    throw new FilterPatternError(`${at} must list at least two patterns`);
  }
  const branches = spec.map((branch, index) => compileObject(branch, `${at}[${index}]`));
  return (record) => branches.some((branch) => branch(record));
}

function compileLeaf(rules: readonly unknown[], at: string): FieldTest {
  if (rules.length === 0) throw new FilterPatternError(`${at} has an empty list: give at least one rule`);
  const tests = rules.map((rule, index) => compileRule(rule, `${at}[${index}]`));
  return (field) => tests.some((test) => test(field));
}

/** A rule on a leaf; on a present array, true when any element passes (EventBridge's array rule). */
function onValue(test: ValueTest): FieldTest {
  return (field) => {
    if (!field.present) return false;
    return Array.isArray(field.value) ? field.value.some(test) : test(field.value);
  };
}

function compileRule(rule: unknown, at: string): FieldTest {
  if (rule === null || ['string', 'number', 'boolean'].includes(typeof rule)) {
    return onValue((value) => value === rule);
  }
  if (!isPlainObject(rule)) throw new FilterPatternError(`${at} is ${describe(rule)}: not a rule`);
  const entries = Object.entries(rule);
  const [entry] = entries;
  if (entries.length !== 1 || !entry) {
    throw new FilterPatternError(`${at} must have exactly one operator, has ${entries.length}`);
  }
  const [operator, operand] = entry;
  switch (operator) {
    case 'prefix': {
      const prefix = stringOperand(operand, at, operator);
      return onValue((value) => typeof value === 'string' && value.startsWith(prefix));
    }
    case 'suffix': {
      const suffix = stringOperand(operand, at, operator);
      return onValue((value) => typeof value === 'string' && value.endsWith(suffix));
    }
    case 'equals-ignore-case': {
      const expected = stringOperand(operand, at, operator).toLowerCase();
      return onValue((value) => typeof value === 'string' && value.toLowerCase() === expected);
    }
    case 'numeric':
      return onValue(compileNumeric(operand, at));
    case 'exists':
      if (typeof operand !== 'boolean') throw new FilterPatternError(`${at}: exists takes true or false`);
      return (field) => (operand ? field.present && !isPlainObject(field.value) : !field.present);
    case 'anything-but':
      return compileAnythingBut(operand, at);
    default:
      throw new FilterPatternError(
        `${at}: "${operator}" is not in Lambda's filter rules (exact values, prefix, suffix, equals-ignore-case, numeric, exists, anything-but, $or)`,
      );
  }
}

function stringOperand(operand: unknown, at: string, operator: string): string {
  if (typeof operand !== 'string') {
    throw new FilterPatternError(`${at}: ${operator} takes a string, not ${describe(operand)}`);
  }
  return operand;
}

function compileAnythingBut(operand: unknown, at: string): FieldTest {
  const values = Array.isArray(operand) ? operand : [operand];
  const scalar = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number';
  if (values.length === 0 || !values.every(scalar)) {
    throw new FilterPatternError(
      `${at}: anything-but takes a string, a number or a list of them (Lambda's filter rules have no anything-but of a prefix, suffix or wildcard)`,
    );
  }
  // A field the record lacks is not "anything but": EventBridge matches anything-but on present fields only.
  return onValue((value) => !values.includes(value as string | number));
}

function compileNumeric(operand: unknown, at: string): ValueTest {
  const fail = (why: string): never => {
    throw new FilterPatternError(`${at}: numeric ${why}`);
  };
  if (!Array.isArray(operand)) return fail('takes a list such as [">", 0, "<=", 5] or ["=", 100]');
  const pairs: [string, number][] = [];
  for (let index = 0; index < operand.length; index += 2) {
    const [operator, bound] = [operand[index], operand[index + 1]];
    if (typeof operator !== 'string' || typeof bound !== 'number' || !Number.isFinite(bound)) {
      fail(`needs an operator followed by a number at position ${index}`);
    }
    pairs.push([operator as string, bound as number]);
  }
  const [first, second] = pairs;
  const valid =
    (pairs.length === 1 &&
      first &&
      (first[0] === '=' || NUMERIC_LOWER.has(first[0]) || NUMERIC_UPPER.has(first[0]))) ||
    (pairs.length === 2 && first && second && NUMERIC_LOWER.has(first[0]) && NUMERIC_UPPER.has(second[0]));
  if (!valid) fail('takes "=" alone, one bound, or a lower bound (>, >=) then an upper bound (<, <=)');
  return (value) =>
    typeof value === 'number' &&
    pairs.every(([operator, bound]) => {
      switch (operator) {
        case '=':
          return value === bound;
        case '>':
          return value > bound;
        case '>=':
          return value >= bound;
        case '<':
          return value < bound;
        default:
          return value <= bound;
      }
    });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`;
}
