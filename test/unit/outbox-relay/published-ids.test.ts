import { describe, expect, it } from 'vitest';
import { PublishedIds } from '../../../lambdas/outbox-relay/published-ids.js';

describe("the relay container's memory of published ids", () => {
  it('knows what it was told, forgets the oldest past its capacity, and anything past its age', () => {
    const ids = new PublishedIds({ capacity: 2, ttlMs: 1_000 });
    ids.add('a', 0);
    ids.add('b', 10);
    expect(ids.has('a', 20)).toBe(true);
    ids.add('c', 30);
    expect([ids.has('a', 30), ids.has('b', 30), ids.has('c', 30)]).toEqual([false, true, true]);
    expect(ids.size).toBe(2);
    expect(ids.has('c', 1_030)).toBe(true);
    expect(ids.has('c', 1_031)).toBe(false);
  });
});
