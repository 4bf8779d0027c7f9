/**
 * The rules of one field's list in a Lambda filter pattern, each compiled to a test on one leaf of the
 * event (filter-event.ts), or to "the field has no leaf" (`exists: false`), refusing at synth what Lambda's
 * syntax table lacks and what AWS's engine (aws/event-ruler) refuses to compile: the facts, with their
 * sources, are in docs/aws-facts.md#event-filtering; the examples that pin them are in
 * test/unit/lib/filter-pattern-examples.test.ts.
 */
import type { LeafValue } from './filter-event.js';

export class FilterPatternError extends Error {
  public override readonly name = 'FilterPatternError';
}

export type LeafTest = (leaf: LeafValue) => boolean;

/** One entry of a field's list: a test one of the field's leaves must pass, or "no leaf at all". */
export type FieldRule = { readonly kind: 'leaf'; readonly test: LeafTest } | { readonly kind: 'absent' };

const LOWER_BOUNDS = new Set(['>', '>=']);
const UPPER_BOUNDS = new Set(['<', '<=']);

/** The operators Lambda's syntax table has (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html#filtering-syntax). */
const LAMBDA_OPERATORS = [
  'prefix',
  'suffix',
  'equals-ignore-case',
  'numeric',
  'exists',
  'anything-but',
] as const;

export function compileRule(rule: unknown, at: string): FieldRule {
  if (rule === null || typeof rule === 'string' || typeof rule === 'boolean' || typeof rule === 'number') {
    return { kind: 'leaf', test: exactTest(rule, at) };
  }
  if (!isPlainObject(rule)) throw new FilterPatternError(`${at} is ${describe(rule)}: not a rule`);
  const entries = Object.entries(rule);
  const [entry] = entries;
  if (entries.length !== 1 || !entry) {
    throw new FilterPatternError(`${at} must have exactly one operator, has ${entries.length}`);
  }
  const [operator, operand] = entry;
  const onStrings = (test: (value: string) => boolean): FieldRule => ({
    kind: 'leaf',
    test: (leaf) => leaf.type === 'string' && test(leaf.value),
  });
  switch (operator) {
    case 'prefix': {
      const prefix = stringOperand(operand, at, operator);
      return onStrings((value) => value.startsWith(prefix));
    }
    case 'suffix': {
      const suffix = stringOperand(operand, at, operator);
      return onStrings((value) => value.endsWith(suffix));
    }
    case 'equals-ignore-case':
      return onStrings(ignoringCase(stringOperand(operand, at, operator)));
    case 'numeric': {
      const test = compileNumeric(operand, at);
      return {
        kind: 'leaf',
        test: (leaf) => leaf.type === 'number' && leaf.value !== undefined && test(leaf.value),
      };
    }
    case 'exists':
      if (typeof operand !== 'boolean') throw new FilterPatternError(`${at}: exists takes true or false`);
      return operand ? { kind: 'leaf', test: () => true } : { kind: 'absent' };
    case 'anything-but':
      return { kind: 'leaf', test: compileAnythingBut(operand, at) };
    default:
      throw new FilterPatternError(
        `${at}: "${operator}" is not in Lambda's filter rules (exact values, ${LAMBDA_OPERATORS.join(', ')}, $or)`,
      );
  }
}

/**
 * An exact value, compared as written: strings character by character, numbers by their text (Lambda:
 * "300, 300.0, and 3.0e2 are not considered equal"), a rule's number by the text CDK writes for it.
 */
function exactTest(rule: string | number | boolean | null, at: string): LeafTest {
  if (typeof rule === 'number') {
    const text = finiteNumberText(rule, at);
    return (leaf) => leaf.type === 'number' && leaf.text === text;
  }
  if (typeof rule === 'string') return (leaf) => leaf.type === 'string' && leaf.value === rule;
  if (typeof rule === 'boolean') return (leaf) => leaf.type === 'boolean' && leaf.value === rule;
  return (leaf) => leaf.type === 'null';
}

/** The JSON text CDK writes for a number; JSON has no NaN or Infinity (JSON.stringify makes them null). */
function finiteNumberText(value: number, at: string): string {
  if (!Number.isFinite(value)) throw new FilterPatternError(`${at}: ${value} is not a number JSON can carry`);
  return JSON.stringify(value);
}

/**
 * equals-ignore-case as event-ruler folds it: code point by code point, each matching itself and its
 * lower and upper case where that is one code point too (so `ΟΔΟΣ` matches `οδοσ`, not `οδος` with its
 * final sigma; `k` not the Kelvin sign; `ß` not `SS`).
 */
function ignoringCase(expected: string): (value: string) => boolean {
  const forms = [...expected].map(
    (char) =>
      new Set([char, char.toLowerCase(), char.toUpperCase()].filter((form) => [...form].length === 1)),
  );
  return (value) => {
    const chars = [...value];
    return chars.length === forms.length && chars.every((char, index) => forms[index]?.has(char));
  };
}

function stringOperand(operand: unknown, at: string, operator: string): string {
  if (typeof operand !== 'string') {
    throw new FilterPatternError(`${at}: ${operator} takes a string, not ${describe(operand)}`);
  }
  return operand;
}

/**
 * anything-but a string, a number, or a list of strings only or numbers only: a leaf matches when it is
 * none of them, compared as exact values are (by text); a string is never a number (`"5"` is anything but
 * 5), null or a boolean is anything but any of them. A field without a leaf never matches.
 */
function compileAnythingBut(operand: unknown, at: string): LeafTest {
  const values = Array.isArray(operand) ? operand : [operand];
  const strings = values.every((value) => typeof value === 'string');
  const numbers = values.every((value) => typeof value === 'number');
  if (values.length === 0 || !(strings || numbers)) {
    throw new FilterPatternError(
      `${at}: anything-but takes a string, a number, or a list of strings only or of numbers only (AWS's matcher refuses a mixed list, null and booleans; Lambda's filter rules have no anything-but of a prefix, suffix or wildcard)`,
    );
  }
  if (strings) {
    const excluded = new Set(values as string[]);
    return (leaf) => !(leaf.type === 'string' && excluded.has(leaf.value));
  }
  const texts = new Set((values as number[]).map((value) => finiteNumberText(value, at)));
  return (leaf) => !(leaf.type === 'number' && texts.has(leaf.text));
}

/**
 * Numeric matching as AWS documents it (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html#filtering-numeric-matching):
 * "limited to values between -5.0e9 and +5.0e9 inclusive, with 15 digits of precision, or six digits to
 * the right of the decimal point". A bound outside that is refused at synth; a value outside it never
 * matches; both are compared in millionths, whole numbers a double holds exactly (5e15 < 2^53).
 */
const NUMERIC_LIMIT = 5e9;
const NUMERIC_DECIMALS = 6;
const MILLIONTHS = 10 ** NUMERIC_DECIMALS;
/** The limit as AWS's page writes it: 5.0e9. */
const LIMIT_TEXT = NUMERIC_LIMIT.toExponential(1).replace('+', '');

function millionths(value: number): number | undefined {
  return Number.isFinite(value) && Math.abs(value) <= NUMERIC_LIMIT
    ? Math.round(value * MILLIONTHS)
    : undefined;
}

function compileNumeric(operand: unknown, at: string): (value: number) => boolean {
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
    const scaled = millionths(bound as number);
    if (scaled === undefined || scaled / MILLIONTHS !== bound) {
      fail(
        `bound ${bound} is outside what AWS documents for numeric matching: -${LIMIT_TEXT} to ${LIMIT_TEXT} with at most ${NUMERIC_DECIMALS} digits after the decimal point`,
      );
    }
    pairs.push([operator as string, scaled as number]);
  }
  const [first, second] = pairs;
  const valid =
    (pairs.length === 1 &&
      first &&
      (first[0] === '=' || LOWER_BOUNDS.has(first[0]) || UPPER_BOUNDS.has(first[0]))) ||
    (pairs.length === 2 && first && second && LOWER_BOUNDS.has(first[0]) && UPPER_BOUNDS.has(second[0]));
  if (!valid) fail('takes "=" alone, one bound, or a lower bound (>, >=) then an upper bound (<, <=)');
  if (first && second && first[1] >= second[1]) {
    fail(
      `range's lower bound must be below its upper bound (AWS's matcher refuses it; use ["=", n] for one value)`,
    );
  }
  return (value) => {
    const scaled = millionths(value);
    return (
      scaled !== undefined &&
      pairs.every(([operator, bound]) => {
        switch (operator) {
          case '=':
            return scaled === bound;
          case '>':
            return scaled > bound;
          case '>=':
            return scaled >= bound;
          case '<':
            return scaled < bound;
          default:
            return scaled <= bound;
        }
      })
    );
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`;
}
