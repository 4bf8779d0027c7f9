/** The contract's transactional mode, one record at a time: the inbox row and the effect, atomically. */
import { describe, expect, it } from 'vitest';
import {
  type ContractTest,
  committed,
  entry,
  insertUnique,
  itWhen,
  leaseOf,
  put,
  putIfAbsent,
  remove,
  requireItem,
  START_MS,
  TTL_SECONDS,
} from './contract-test.js';

export function describeCommitCases(t: ContractTest): void {
  const whenLimited = itWhen(t.subject.capabilities.contentLimits);
  const whenTwoWritesRefused = itWhen(t.subject.capabilities.twoWritesOnOneItemRefused);
  const whenStepsSeeEarlierSteps = itWhen(t.subject.capabilities.stepsSeeEarlierSteps);
  const whenStoreConstraints = itWhen(t.subject.capabilities.storeConstraints);

  describe('commit', () => {
    it('writes the inbox row and the effect writes together', async () => {
      await t.commit(entry('seed'), [put('account#a1', { balance: 5 }), put('cart#a1')]);

      const result = await t.commit(entry('k1'), [
        put('order#o1', { total: 10 }),
        requireItem('account#a1'),
        remove('cart#a1'),
      ]);

      expect(result).toEqual({ kind: 'committed' });
      expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1', total: 10 });
      expect(await t.h.appItem('account#a1')).toEqual({ pk: 'account#a1', balance: 5 });
      expect(await t.h.appItem('cart#a1')).toBeUndefined();
      expect(await t.claim(entry('k1'))).toMatchObject({
        kind: 'duplicate',
        existing: { status: 'COMPLETED', payloadHash: 'hash-1', source: 'orders-0@1' },
      });
    });

    it('commits the inbox row alone when the effect has no writes', async () => {
      expect(await t.commit(entry('k1'), [])).toEqual({ kind: 'committed' });
      expect((await t.commit(entry('k1'), [])).kind).toBe('duplicate');
    });

    it('reports a duplicate for the same payload and a conflict for another, writing nothing', async () => {
      await t.commit(entry('k1', 'hash-1', 'orders-0@1'), [put('order#first')]);

      const duplicate = await t.commit(entry('k1', 'hash-1', 'orders-0@2'), [put('order#dup')]);
      const conflict = await t.commit(entry('k1', 'hash-2', 'orders-0@3'), [put('order#conflict')]);

      expect(duplicate).toEqual({
        kind: 'duplicate',
        existing: {
          status: 'COMPLETED',
          payloadHash: 'hash-1',
          leaseUntilMs: undefined,
          source: 'orders-0@1',
          expiresAtSeconds: START_MS / 1000 + TTL_SECONDS,
        },
      });
      expect(conflict).toMatchObject({ kind: 'conflict', existing: { payloadHash: 'hash-1' } });
      expect(await t.h.appItem('order#dup')).toBeUndefined();
      expect(await t.h.appItem('order#conflict')).toBeUndefined();
    });

    it('reports in-flight, writing nothing, while a side-effect attempt holds a live lease', async () => {
      const holder = leaseOf(await t.claim(entry('k1')));

      const result = await t.commit(entry('k1'), [put('order#o1')]);

      expect(result).toMatchObject({ kind: 'in-flight', existing: { leaseOwner: holder.token } });
      expect(await t.h.appItem('order#o1')).toBeUndefined();
      expect(await t.store.complete(holder)).toBe('completed');
    });

    it('takes over an expired lease; the stale attempt can then neither complete nor release', async () => {
      const until = t.leaseFromNow();
      const stale = leaseOf(await t.store.claim(entry('k1'), until));
      t.at(until + 1);

      expect(await t.commit(entry('k1'), [put('order#o1')])).toEqual({ kind: 'committed' });
      expect(await t.h.appItem('order#o1')).toBeDefined();
      expect(await t.store.complete(stale)).toBe('lease-lost');
      expect(await t.store.release(stale)).toBe('lease-lost');
      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
    });

    it('reports a business rejection with the failing write index, and writes neither row nor effects', async () => {
      const result = await t.commit(entry('k1'), [put('order#o1'), requireItem('account#missing')]);

      expect(result).toEqual(t.rejectedAt(1));
      expect(await t.h.appItem('order#o1')).toBeUndefined();
      expect(await t.h.holdsDedupRow('k1')).toBe(false);
      expect(await t.commit(entry('k1'), [put('order#o1')])).toEqual({ kind: 'committed' });
    });

    it('judges an effect condition on what earlier commits wrote', async () => {
      expect(await t.commit(entry('k1'), [putIfAbsent('order#o1', { by: 'k1' })])).toEqual({
        kind: 'committed',
      });

      const second = await t.commit(entry('k2'), [put('audit#k2'), putIfAbsent('order#o1', { by: 'k2' })]);

      expect(second).toEqual(t.rejectedAt(1));
      expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1', by: 'k1' });
      expect(await t.h.appItem('audit#k2')).toBeUndefined();
    });

    it('names the first failing write when several conditions fail', async () => {
      const result = await t.commit(entry('k1'), [
        put('order#o1'),
        requireItem('account#a'),
        requireItem('account#b'),
      ]);

      expect(result).toEqual(t.rejectedAt(1));
    });

    it('reports a duplicate, not a business rejection, when the key is finished and an effect condition fails too', async () => {
      await t.commit(entry('k1'), []);

      const again = await t.commit(entry('k1'), [requireItem('account#missing')]);

      expect(again.kind).toBe('duplicate');
    });

    whenTwoWritesRefused(
      'rejects a transaction with two writes on one item, writing nothing and leaving the key free',
      async () => {
        const result = await t.commit(entry('k1'), [put('order#o1'), put('order#o1', { again: true })]);

        expect(result).toMatchObject({
          kind: 'rejected',
          message: expect.stringMatching(/multiple operations on one item/i),
        });
        expect(await t.h.appItem('order#o1')).toBeUndefined();
        expect(await t.h.holdsDedupRow('k1')).toBe(false);
        expect((await t.claim(entry('k1'))).kind).toBe('claimed');
      },
    );

    whenLimited('rejects an effect item over 400 KB, writing nothing and leaving the key free', async () => {
      const result = await t.commit(entry('k1'), [
        put('order#small'),
        put('order#huge', { blob: 'x'.repeat(400 * 1024) }),
      ]);

      expect(result).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/item size/i) });
      expect(await t.h.appItem('order#small')).toBeUndefined();
      expect(await t.h.holdsDedupRow('k1')).toBe(false);
      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
    });

    whenLimited('rejects an effect key over 2,048 bytes, writing nothing', async () => {
      const result = await t.commit(entry('k1'), [put('order#small'), put('x'.repeat(2_049))]);

      expect(result.kind).toBe('rejected');
      expect(await t.h.appItem('order#small')).toBeUndefined();
      expect(await t.h.holdsDedupRow('k1')).toBe(false);
    });

    whenStepsSeeEarlierSteps(
      'applies the steps in order: a second write on one item wins, and a rule sees what an earlier step wrote',
      async () => {
        const result = await t.commit(entry('k1'), [
          put('order#o1'),
          put('order#o1', { again: true }),
          requireItem('order#o1'),
        ]);

        expect(result).toEqual(committed);
        expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1', again: true });
        expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
      },
    );

    whenStoreConstraints(
      'rejects a record whose effect breaks a constraint of the store, writing neither row nor effects and leaving the key free',
      async () => {
        await t.commit(entry('seed'), [put('account#a1', { balance: 5 })]);

        const result = await t.commit(entry('k1'), [
          put('order#o1'),
          insertUnique('account#a1', { balance: 0 }),
        ]);

        expect(result).toEqual(t.h.constraintRejection);
        expect(await t.h.appItem('order#o1')).toBeUndefined();
        expect(await t.h.appItem('account#a1')).toEqual({ pk: 'account#a1', balance: 5 });
        expect(await t.h.holdsDedupRow('k1')).toBe(false);
        expect(await t.commit(entry('k1'), [put('order#o1')])).toEqual(committed);
      },
    );
  });
}
