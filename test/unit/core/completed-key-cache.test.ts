import { describe, expect, it } from 'vitest';
import { CachingInboxStore } from '../../../lambdas/core/caching-inbox-store.js';
import { CompletedKeyCache } from '../../../lambdas/core/completed-key-cache.js';
import { ManualClock } from '../../support/clocks.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';

const TTL_SECONDS = 3_600;
const completed = (payloadHash: string, expiresAtSeconds: number) => ({
  payloadHash,
  source: 'orders-0@1',
  expiresAtSeconds,
});

describe('CompletedKeyCache', () => {
  const clock = new ManualClock();
  const later = Math.floor(clock.nowMs() / 1000) + TTL_SECONDS;

  it('evicts the least recently used key once full, a hit counting as a use', () => {
    const cache = new CompletedKeyCache(2, clock);
    cache.remember('a', completed('h', later));
    cache.remember('b', completed('h', later));
    cache.get('a');

    cache.remember('c', completed('h', later));

    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('forgets a key once its inbox row would have expired', () => {
    const cache = new CompletedKeyCache(10, clock);
    cache.remember('a', completed('h', Math.floor(clock.nowMs() / 1000) + 10));

    clock.advance(9_000);
    expect(cache.get('a')).toBeDefined();
    clock.advance(1_000);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('remembers nothing when its size is 0', () => {
    const cache = new CompletedKeyCache(0, clock);
    cache.remember('a', completed('h', later));

    expect(cache.get('a')).toBeUndefined();
  });
});

describe('CachingInboxStore', () => {
  function setup(maxEntries = 100) {
    const clock = new ManualClock();
    const inner = new MemoryInboxStore(clock, TTL_SECONDS);
    const store = new CachingInboxStore({
      store: inner,
      cache: new CompletedKeyCache(maxEntries, clock),
      ttlSeconds: TTL_SECONDS,
      clock,
    });
    return { clock, inner, store };
  }
  const entry = (dedupKey: string, payloadHash = 'h1') => ({ dedupKey, payloadHash, source: 'orders-0@1' });

  it('answers a committed key as a duplicate without asking the store again', async () => {
    const { inner, store } = setup();
    await store.commit(entry('k'), []);

    const again = await store.commit(entry('k'), []);

    expect(again).toMatchObject({
      kind: 'duplicate',
      existing: { status: 'COMPLETED', source: 'orders-0@1' },
    });
    expect(inner.calls).toHaveLength(1);
  });

  it('asks the store when the cached key comes with another payload, which reports the conflict', async () => {
    const { inner, store } = setup();
    await store.commit(entry('k', 'h1'), []);

    const conflict = await store.commit(entry('k', 'h2'), []);

    expect(conflict.kind).toBe('conflict');
    expect(inner.calls).toHaveLength(2);
  });

  it('remembers a duplicate the store reported, until that row expires', async () => {
    const { clock, inner, store } = setup();
    await inner.commit(entry('k'), []);
    clock.advance(1_000_000);

    expect((await store.commit(entry('k'), [])).kind).toBe('duplicate');
    expect((await store.commit(entry('k'), [])).kind).toBe('duplicate');
    expect(inner.calls).toHaveLength(2);
    // The row was written 1,000 s before the store reported it: the cache stops answering when it ends.
    clock.advance((TTL_SECONDS - 1_000) * 1000);
    expect((await store.commit(entry('k'), [])).kind).toBe('duplicate');
    expect(inner.calls).toHaveLength(3);
    clock.advance(1_000);
    expect((await store.commit(entry('k'), [])).kind).toBe('committed');
  });

  it('remembers a side-effect key only once its completion is confirmed', async () => {
    const { inner, store } = setup();
    const claim = await store.claim(entry('k'), Date.now() + 60_000);
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    await store.complete(claim.lease);

    expect((await store.claim(entry('k'), Date.now() + 60_000)).kind).toBe('duplicate');
    expect(inner.calls.map((call) => call.operation)).toEqual(['claim', 'complete']);
  });

  it('does not remember a key whose lease was lost or released', async () => {
    const { inner, store } = setup();
    const first = await store.claim(entry('lost'), 0);
    const second = await store.claim(entry('released'), Date.now() + 60_000);
    if (first.kind !== 'claimed' || second.kind !== 'claimed') throw new Error('not claimed');
    inner.rows.delete('lost');
    await store.complete(first.lease);
    await store.release(second.lease);

    await store.claim(entry('lost'), Date.now() + 60_000);
    await store.claim(entry('released'), Date.now() + 60_000);

    expect(inner.calls.filter((call) => call.operation === 'claim')).toHaveLength(4);
  });

  describe('commitGroup', () => {
    /** The setup, with the groups the wrapped store was asked for, by their keys. */
    function groupSetup() {
      const parts = setup();
      const asked: string[][] = [];
      const commitGroup = parts.inner.commitGroup.bind(parts.inner);
      parts.inner.commitGroup = (members) => {
        asked.push(members.map((member) => member.entry.dedupKey));
        return commitGroup(members);
      };
      return { ...parts, asked };
    }
    const member = (dedupKey: string, payloadHash = 'h1') => ({
      entry: entry(dedupKey, payloadHash),
      writes: [],
    });

    it("passes the processor's deadline check on to the store it wraps", async () => {
      const { inner, store } = setup();
      const seen: unknown[] = [];
      inner.commitGroup = async (members, options) => {
        seen.push(options?.mayContinue?.());
        return members.map(() => ({ kind: 'committed' }) as const);
      };

      await store.commitGroup([member('b'), member('c')], { mayContinue: () => false });

      expect(seen).toEqual([false]);
    });

    it('answers a cached duplicate itself and asks the store for the other members only, answering in member order', async () => {
      const { inner, store, asked } = groupSetup();
      await store.commit({ ...entry('a'), source: 'orders-0@7' }, []);
      await inner.commit(entry('x', 'h1'), []);

      const results = await store.commitGroup([member('b'), member('a'), member('c'), member('x', 'h2')]);

      expect(results).toEqual([
        { kind: 'committed' },
        {
          kind: 'duplicate',
          existing: expect.objectContaining({ status: 'COMPLETED', payloadHash: 'h1', source: 'orders-0@7' }),
        },
        { kind: 'committed' },
        { kind: 'conflict', existing: expect.objectContaining({ payloadHash: 'h1' }) },
      ]);
      expect(asked).toEqual([['b', 'c', 'x']]);
      expect(inner.calls.filter((call) => call.key === 'a')).toHaveLength(1);
    });

    it('remembers the keys a group committed and the duplicates the store reported, not its conflicts', async () => {
      const { inner, store, asked } = groupSetup();
      await inner.commit(entry('d'), []);
      await inner.commit(entry('x', 'h1'), []);
      await store.commitGroup([member('b'), member('d'), member('x', 'h2'), member('c')]);

      const again = await store.commitGroup([member('c'), member('x', 'h2'), member('d'), member('b')]);

      expect(again.map((result) => result.kind)).toEqual(['duplicate', 'conflict', 'duplicate', 'duplicate']);
      expect(asked).toEqual([['b', 'd', 'x', 'c'], ['x']]);
    });

    it('asks the store nothing when every member is a cached duplicate', async () => {
      const { store, asked } = groupSetup();
      await store.commit(entry('a'), []);
      await store.commit(entry('b'), []);

      const results = await store.commitGroup([member('b'), member('a')]);

      expect(results.map((result) => result.kind)).toEqual(['duplicate', 'duplicate']);
      expect(asked).toEqual([]);
    });
  });

  it('asks the store again for a key evicted from a full cache', async () => {
    const { inner, store } = setup(1);
    await store.commit(entry('a'), []);
    await store.commit(entry('b'), []);

    expect((await store.commit(entry('a'), [])).kind).toBe('duplicate');
    expect(inner.calls).toHaveLength(3);
  });
});
