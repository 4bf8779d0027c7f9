/**
 * The shape rules of an `idempotent` plan (docs/design.md#idempotent-plans): which DynamoDB writes change
 * nothing when applied a second time, so they need no inbox row. Judged on the request's text alone, and
 * conservatively: a write is accepted only when its shape proves it; anything else is refused with the fix.
 *
 * A write is accepted when it does not accumulate (no `ADD`, no `DELETE` of set elements, every `SET` takes
 * a value from the event: `:v`, or `if_not_exists(path, :v)` of its own path) and either
 * - the event owns its item: a string of the item's key is the dedup key, alone or as a `#`-separated
 *   part (`order#<dedup key>`); a Put's key is read from its item's `pk` and `sk`; or
 * - it is guarded: its condition reads an attribute the write itself changes (`attribute_not_exists(#v)
 *   OR #v < :v` with `SET #v = :v`; `#status = :pending` with `SET #status = :shipped`), so once applied
 *   the condition sees the write's own values. For a Delete every attribute changes: any condition guards.
 * A ConditionCheck writes nothing: it may stand beside writes, never alone, and guards none of them.
 */
import {
  type EffectWrite,
  type EffectWriteTarget,
  putItemKey,
  TRANSACT_WRITE_MAX_ACTIONS,
} from './effect.js';

export type IdempotentShape = { readonly ok: true } | { readonly ok: false; readonly problem: string };

/** The quarantine reason of a plan refused by these rules. */
export const NOT_IDEMPOTENT = 'effect-not-idempotent';

/** Every action of the TransactWriteItems is the plan's: there is no inbox row. */
export const MAX_IDEMPOTENT_WRITES = TRANSACT_WRITE_MAX_ACTIONS;

const USE_TRANSACT = 'or return a `transact` plan (its inbox row applies the write once)';

/** Whether every write of the plan is idempotent by shape; the first that is not, named, when not. */
export function checkIdempotentWrites(writes: readonly EffectWrite[], dedupKey: string): IdempotentShape {
  if (writes.every((write) => 'ConditionCheck' in write)) {
    return {
      ok: false,
      problem: `an idempotent plan with ${writes.length === 0 ? 'no writes' : 'only ConditionChecks'} writes nothing: return { kind: 'skip', reason } instead`,
    };
  }
  if (writes.length > MAX_IDEMPOTENT_WRITES) {
    return {
      ok: false,
      problem: `${writes.length} writes; one TransactWriteItems holds ${MAX_IDEMPOTENT_WRITES}`,
    };
  }
  for (const [index, write] of writes.entries()) {
    const problem = writeProblem(write, dedupKey);
    if (problem !== undefined)
      return { ok: false, problem: `write ${index} (${describe(write)}): ${problem}` };
  }
  return { ok: true };
}

function writeProblem(write: EffectWrite, dedupKey: string): string | undefined {
  if ('ConditionCheck' in write) return undefined;
  if ('Put' in write) {
    const { Item } = write.Put;
    const key = putItemKey(Item);
    if (key && ownsKey(key, dedupKey)) return undefined;
    if (guards(write.Put, new Set(Object.keys(Item)))) return undefined;
    return unguarded('its item has no `pk` or `sk` holding the event id', 'attribute_not_exists(#pk)');
  }
  if ('Delete' in write) {
    if (ownsKey(write.Delete.Key, dedupKey) || write.Delete.ConditionExpression?.trim()) return undefined;
    return unguarded('its key does not hold the event id', '#v < :v');
  }
  const update = write.Update;
  const clauses = updateClauses(update.UpdateExpression);
  if ('problem' in clauses) return clauses.problem;
  if (ownsKey(update.Key, dedupKey)) return undefined;
  const names = update.ExpressionAttributeNames ?? {};
  const changed = new Set([...clauses.set, ...clauses.remove].map((path) => topName(path, names)));
  if (guards(update, changed)) return undefined;
  return unguarded('its key does not hold the event id', 'attribute_not_exists(#v) OR #v < :v');
}

function unguarded(notOwned: string, example: string): string {
  return (
    `${notOwned}, and it has no condition reading an attribute it writes, so a late redelivery would write ` +
    `over a newer event's values: add a guard (ConditionExpression '${example}'), key the item by the event id, ${USE_TRANSACT}`
  );
}

/** A string of the key that is the dedup key, alone or as a `#`-separated part. */
function ownsKey(key: Readonly<Record<string, unknown>>, dedupKey: string): boolean {
  // An empty key would be a part of every string with a `#`.
  if (dedupKey === '') return false;
  return Object.values(key).some(
    (value) =>
      typeof value === 'string' &&
      (value === dedupKey ||
        value.startsWith(`${dedupKey}#`) ||
        value.endsWith(`#${dedupKey}`) ||
        value.includes(`#${dedupKey}#`)),
  );
}

/** The write's condition reads at least one of the attributes the write changes. */
function guards(target: EffectWriteTarget, changed: ReadonlySet<string>): boolean {
  const condition = target.ConditionExpression;
  if (condition === undefined || condition.trim() === '') return false;
  const names = target.ExpressionAttributeNames ?? {};
  return conditionPaths(condition).some((path) => changed.has(topName(path, names)));
}

const CLAUSE = /(?<![#:.\w])(SET|REMOVE|ADD|DELETE)(?!\w)/gi;
const VALUE = ':[A-Za-z0-9_]+';
const PATH =
  '(?:#[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*)(?:\\.(?:#[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*)|\\[\\d+\\])*';
const EVENT_VALUE = new RegExp(`^${VALUE}$`);
/** `if_not_exists(path, :v)`: the path is captured, since only the attribute's own keeps the value the event's. */
const EVENT_VALUE_IF_ABSENT = new RegExp(`^if_not_exists\\s*\\(\\s*(${PATH})\\s*,\\s*${VALUE}\\s*\\)$`);

/**
 * The paths an UpdateExpression sets and removes; a problem when it accumulates or sets a value not taken
 * from the event. Clause keywords are reserved words, so they never stand as a raw attribute name.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
 */
function updateClauses(
  expression: string,
): { readonly set: string[]; readonly remove: string[] } | { readonly problem: string } {
  const set: string[] = [];
  const remove: string[] = [];
  const keywords = [...expression.matchAll(CLAUSE)];
  for (const [index, match] of keywords.entries()) {
    const keyword = (match[1] as string).toUpperCase();
    const body = expression.slice(match.index + match[0].length, keywords[index + 1]?.index);
    if (keyword === 'ADD') {
      return {
        problem: `\`ADD\` adds again each time it is applied: SET an absolute value under a version guard, ${USE_TRANSACT}`,
      };
    }
    if (keyword === 'DELETE') {
      return {
        problem: `\`DELETE\` takes elements out of a set as it stands, not to a value of the event: SET the whole set under a version guard, ${USE_TRANSACT}`,
      };
    }
    for (const action of topLevelParts(body)) {
      if (keyword === 'REMOVE') {
        remove.push(action);
        continue;
      }
      const equals = action.indexOf('=');
      const path = action.slice(0, equals).trim();
      const value = action.slice(equals + 1).trim();
      const ifAbsent = EVENT_VALUE_IF_ABSENT.exec(value)?.[1];
      if (equals < 0 || EVENT_VALUE.test(value) || ifAbsent?.replace(/\s/g, '') === path.replace(/\s/g, '')) {
        set.push(path);
        continue;
      }
      return { problem: `\`SET ${path} = ${value}\` ${setProblem(value)}` };
    }
  }
  return { set, remove };
}

function setProblem(value: string): string {
  if (/list_append/i.test(value))
    return `appends to the list again each time it is applied: SET the whole list from the event, ${USE_TRANSACT}`;
  if (/[+-]/.test(value))
    return `computes from the stored value, so applying it again changes it again: SET the value the event gives (under a version guard), ${USE_TRANSACT}`;
  return `copies a stored value instead of one the event gives: SET \`:value\` or \`if_not_exists(path, :value)\`, ${USE_TRANSACT}`;
}

/** A clause's actions: its text split at commas outside parentheses. */
function topLevelParts(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < body.length; at++) {
    const char = body[at];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(body.slice(start, at).trim());
      start = at + 1;
    }
  }
  parts.push(body.slice(start).trim());
  return parts.filter((part) => part !== '');
}

const CONDITION_WORDS = new Set(['and', 'or', 'not', 'between', 'in']);
const TOKEN = new RegExp(`${VALUE}|${PATH}`, 'g');

/** The attribute paths a ConditionExpression reads: neither values, functions nor keywords. */
function conditionPaths(condition: string): string[] {
  const paths: string[] = [];
  for (const match of condition.matchAll(TOKEN)) {
    const token = match[0];
    if (token.startsWith(':') || CONDITION_WORDS.has(token.toLowerCase())) continue;
    const after = condition.slice(match.index + token.length).trimStart();
    if (!after.startsWith('(')) paths.push(token);
  }
  return paths;
}

/** A path's top-level attribute name, its `#placeholder` resolved. */
function topName(path: string, names: Readonly<Record<string, string>>): string {
  const first = path.split(/[.[]/)[0]?.trim() ?? '';
  return first.startsWith('#') ? (names[first] ?? first) : first;
}

function describe(write: EffectWrite): string {
  const [kind, target] = Object.entries(write)[0] as [string, EffectWriteTarget];
  return `${kind} on ${target.TableName}`;
}
