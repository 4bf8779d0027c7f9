/** The shape rules of an `idempotent` plan (lambdas/core/idempotent-writes.ts): each accepted and refused case. */
import { describe, expect, it } from 'vitest';
import type { EffectWrite } from '../../../lambdas/core/effect.js';
import { checkIdempotentWrites, MAX_IDEMPOTENT_WRITES } from '../../../lambdas/core/idempotent-writes.js';

const EVENT = 'evt-7';
const T = 'orders';

function update(
  UpdateExpression: string,
  extra: { key?: string; condition?: string; names?: Record<string, string> } = {},
): EffectWrite {
  return {
    Update: {
      TableName: T,
      Key: { pk: extra.key ?? 'order#o-1' },
      UpdateExpression,
      ...(extra.condition === undefined ? {} : { ConditionExpression: extra.condition }),
      ...(extra.names === undefined ? {} : { ExpressionAttributeNames: extra.names }),
    },
  };
}

const VERSION_GUARD = { condition: 'attribute_not_exists(#v) OR #v < :v', names: { '#v': 'version' } };

function problemOf(writes: readonly EffectWrite[]): string | undefined {
  const shape = checkIdempotentWrites(writes, EVENT);
  return shape.ok ? undefined : shape.problem;
}

describe('checkIdempotentWrites accepts', () => {
  it.each([
    [
      'a Put of an item keyed by the event id',
      { Put: { TableName: T, Item: { pk: `receipt#${EVENT}`, total: 5 } } },
    ],
    ['a Put whose sort key is the event id', { Put: { TableName: T, Item: { pk: 'account#a', sk: EVENT } } }],
    [
      'a put-if-absent of an item it does not own',
      {
        Put: {
          TableName: T,
          Item: { pk: 'order#o-1', total: 5 },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    [
      'a SET of event values on an item keyed by the event id',
      update('SET total = :t', { key: `${EVENT}#line` }),
    ],
    ['a SET under a version guard', update('SET #v = :v, total = :t', VERSION_GUARD)],
    [
      'a SET under a state guard on the attribute it changes',
      update('SET #s = :shipped', { condition: '#s = :pending', names: { '#s': 'status' } }),
    ],
    [
      'an if_not_exists of the attribute itself',
      update('SET created = if_not_exists(created, :now), #v = :v', VERSION_GUARD),
    ],
    ['a REMOVE under a version guard', update('SET #v = :v REMOVE note', VERSION_GUARD)],
    ['a lowercase keyword and a nested path', update('set #v = :v, address.city = :c', VERSION_GUARD)],
    ['a Delete of an item keyed by the event id', { Delete: { TableName: T, Key: { pk: `hold#${EVENT}` } } }],
    [
      'a Delete under a condition',
      { Delete: { TableName: T, Key: { pk: 'hold#h-1' }, ConditionExpression: 'version <= :v' } },
    ],
  ] as [string, EffectWrite][])('%s', (_, write) => {
    expect(problemOf([write])).toBeUndefined();
  });

  it('accepts a ConditionCheck beside a write', () => {
    const check: EffectWrite = {
      ConditionCheck: { TableName: T, Key: { pk: 'account#a' }, ConditionExpression: 'attribute_exists(pk)' },
    };
    expect(problemOf([check, update('SET #v = :v', VERSION_GUARD)])).toBeUndefined();
  });
});

describe('checkIdempotentWrites refuses', () => {
  it.each([
    ['ADD', update('ADD total :t', VERSION_GUARD), '`ADD` adds again'],
    ['x = x + :v', update('SET total = total + :t', VERSION_GUARD), 'computes from the stored value'],
    ['x = :v + x', update('SET total = :t + total', VERSION_GUARD), 'computes from the stored value'],
    ['x = x - :v', update('SET balance = balance - :t', VERSION_GUARD), 'computes from the stored value'],
    [
      'if_not_exists used to accumulate',
      update('SET total = if_not_exists(total, :zero) + :t', VERSION_GUARD),
      'computes from the stored value',
    ],
    ['list_append', update('SET seen = list_append(seen, :e)', VERSION_GUARD), 'appends to the list'],
    ['a DELETE of set elements', update('DELETE tags :t', VERSION_GUARD), '`DELETE` takes elements'],
    ['a copy of a stored value', update('SET a = b', VERSION_GUARD), 'copies a stored value'],
    [
      'an if_not_exists of another attribute',
      update('SET a = if_not_exists(b, :v)', VERSION_GUARD),
      'copies a stored value',
    ],
    [
      'an unguarded SET on an item it does not own',
      update('SET total = :t'),
      'its key does not hold the event id',
    ],
    [
      'a SET whose condition reads no attribute it writes',
      update('SET total = :t', { condition: 'customer = :c' }),
      'no condition reading an attribute it writes',
    ],
    [
      'an unguarded Put of an item it does not own',
      { Put: { TableName: T, Item: { pk: 'order#o-1', eventId: EVENT } } },
      'its item has no `pk` or `sk` holding the event id',
    ],
    [
      'a Put keyed by an id that merely contains the event id',
      { Put: { TableName: T, Item: { pk: `order#${EVENT}0` } } },
      'its item has no `pk` or `sk` holding the event id',
    ],
    [
      'an unguarded Delete of an item it does not own',
      { Delete: { TableName: T, Key: { pk: 'hold#h-1' } } },
      'its key does not hold the event id',
    ],
  ] as [string, EffectWrite, string][])('%s', (_, write, problem) => {
    const refused = problemOf([write]);
    expect(refused).toContain(problem);
    // It names the offending write and the way out.
    expect(refused).toMatch(/^write 0 \((Update|Put|Delete) on orders\): /);
    expect(refused).toContain('`transact` plan');
  });

  it('names the first offending write of several', () => {
    expect(problemOf([update('SET #v = :v', VERSION_GUARD), update('ADD n :one', VERSION_GUARD)])).toMatch(
      /^write 1 \(Update on orders\): `ADD`/,
    );
  });

  it('refuses a ConditionCheck alone and an empty plan', () => {
    const check: EffectWrite = {
      ConditionCheck: { TableName: T, Key: { pk: 'a' }, ConditionExpression: 'attribute_exists(pk)' },
    };
    expect(problemOf([check])).toContain('only ConditionChecks writes nothing');
    expect(problemOf([])).toContain('no writes writes nothing');
  });

  it('refuses more writes than one transaction holds', () => {
    const writes = Array.from({ length: MAX_IDEMPOTENT_WRITES + 1 }, (_, index) =>
      update('SET #v = :v', { ...VERSION_GUARD, key: `order#${index}` }),
    );
    expect(problemOf(writes)).toContain(`one TransactWriteItems holds ${MAX_IDEMPOTENT_WRITES}`);
    expect(problemOf(writes.slice(1))).toBeUndefined();
  });
});
