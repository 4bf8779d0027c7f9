/** The contract's group commit: several records at once, each answered as `commit` alone would answer it. */
import { describe, expect, it } from 'vitest';
import {
  type ContractTest,
  committed,
  entry,
  FIRST_EXPIRED_MS,
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

export function describeCommitGroupCases(t: ContractTest): void {
  const whenLimited = itWhen(t.subject.capabilities.contentLimits);
  const whenStoreConstraints = itWhen(t.subject.capabilities.storeConstraints);

  describe('commitGroup', () => {
    it('commits a group of new records: every inbox row and every effect write', async () => {
      await t.commit(entry('seed'), [put('account#a1', { balance: 5 }), put('cart#a1')]);

      const results = await t.store.commitGroup([
        t.member(entry('k1', 'hash-1', 'orders-0@1'), [
          put('order#o1', { total: 10 }),
          requireItem('account#a1'),
        ]),
        t.member(entry('k2', 'hash-2', 'orders-0@2'), [remove('cart#a1')]),
        t.member(entry('k3', 'hash-3', 'orders-0@3')),
        t.member(entry('k4', 'hash-4', 'orders-0@4'), [put('order#o4', { total: 4 }), put('audit#o4')]),
      ]);

      expect(results).toEqual([committed, committed, committed, committed]);
      expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1', total: 10 });
      expect(await t.h.appItem('account#a1')).toEqual({ pk: 'account#a1', balance: 5 });
      expect(await t.h.appItem('cart#a1')).toBeUndefined();
      expect(await t.h.appItem('order#o4')).toEqual({ pk: 'order#o4', total: 4 });
      expect(await t.h.appItem('audit#o4')).toEqual({ pk: 'audit#o4' });
      for (const [key, payloadHash, source] of [
        ['k1', 'hash-1', 'orders-0@1'],
        ['k2', 'hash-2', 'orders-0@2'],
        ['k3', 'hash-3', 'orders-0@3'],
        ['k4', 'hash-4', 'orders-0@4'],
      ] as const) {
        expect(await t.claim(entry(key, payloadHash))).toMatchObject({
          kind: 'duplicate',
          existing: { status: 'COMPLETED', payloadHash, source },
        });
      }
    });

    it('answers each member as commit alone would when a duplicate, a conflict, a live lease, a business rejection and taken-over rows sit among new records', async () => {
      // A finished row that the group meets past its TTL; the other rows are written in the next window.
      await t.commit(entry('k-old', 'hash-old', 'orders-0@1'), [put('order#old')]);
      t.at(FIRST_EXPIRED_MS);
      const windowEnd = Math.floor(t.clock.nowMs() / 1000) + TTL_SECONDS;
      await t.commit(entry('k-dup', 'hash-1', 'orders-0@2'), [put('order#dup-first')]);
      await t.commit(entry('k-conf', 'hash-1', 'orders-0@3'), []);
      const staleUntil = t.clock.nowMs() + 1_000;
      const stale = leaseOf(await t.store.claim(entry('k-stale', 'hash-1', 'orders-0@4'), staleUntil));
      t.at(staleUntil + 1);
      const liveWindowEnd = Math.floor(t.clock.nowMs() / 1000) + TTL_SECONDS;
      const live = leaseOf(await t.store.claim(entry('k-live', 'hash-1', 'orders-0@5'), t.leaseFromNow()));

      const results = await t.store.commitGroup([
        t.member(entry('k-new1', 'hash-1', 'orders-1@1'), [put('order#new1')]),
        t.member(entry('k-dup', 'hash-1', 'orders-1@2'), [put('order#dup')]),
        t.member(entry('k-conf', 'hash-2', 'orders-1@3'), [put('order#conf')]),
        t.member(entry('k-biz', 'hash-1', 'orders-1@5'), [put('order#biz'), requireItem('account#missing')]),
        t.member(entry('k-stale', 'hash-1', 'orders-1@6'), [put('order#stale')]),
        t.member(entry('k-old', 'hash-2', 'orders-1@7'), [put('order#old-again')]),
        t.member(entry('k-new2', 'hash-1', 'orders-1@8'), [put('order#new2')]),
        // Last: nothing after a member left in flight is sent (see the next case).
        t.member(entry('k-live', 'hash-1', 'orders-1@9'), [put('order#live')]),
      ]);

      // What `commit` answers for each of these alone (the commit cases above).
      expect(results).toEqual([
        committed,
        {
          kind: 'duplicate',
          existing: {
            status: 'COMPLETED',
            payloadHash: 'hash-1',
            leaseUntilMs: undefined,
            source: 'orders-0@2',
            expiresAtSeconds: windowEnd,
          },
        },
        {
          kind: 'conflict',
          existing: {
            status: 'COMPLETED',
            payloadHash: 'hash-1',
            leaseUntilMs: undefined,
            source: 'orders-0@3',
            expiresAtSeconds: windowEnd,
          },
        },
        t.rejectedAt(1),
        committed,
        committed,
        committed,
        {
          kind: 'in-flight',
          existing: {
            status: 'IN_PROGRESS',
            payloadHash: 'hash-1',
            leaseUntilMs: live.leaseUntilMs,
            leaseOwner: live.token,
            source: 'orders-0@5',
            expiresAtSeconds: liveWindowEnd,
          },
        },
      ]);
      // The committed members' rows and writes landed.
      for (const pk of ['order#new1', 'order#stale', 'order#old-again', 'order#new2']) {
        expect(await t.h.appItem(pk)).toEqual({ pk });
      }
      for (const [key, payloadHash, source] of [
        ['k-new1', 'hash-1', 'orders-1@1'],
        ['k-stale', 'hash-1', 'orders-1@6'],
        ['k-old', 'hash-2', 'orders-1@7'],
        ['k-new2', 'hash-1', 'orders-1@8'],
      ] as const) {
        expect(await t.claim(entry(key, payloadHash))).toMatchObject({
          kind: 'duplicate',
          existing: { status: 'COMPLETED', payloadHash, source },
        });
      }
      expect(await t.store.complete(stale)).toBe('lease-lost');
      // The others wrote nothing, and the rows they met are as they were.
      for (const pk of ['order#dup', 'order#conf', 'order#live', 'order#biz']) {
        expect(await t.h.appItem(pk)).toBeUndefined();
      }
      expect(await t.h.appItem('order#dup-first')).toEqual({ pk: 'order#dup-first' });
      expect(await t.claim(entry('k-dup', 'hash-1'))).toMatchObject({
        kind: 'duplicate',
        existing: { source: 'orders-0@2' },
      });
      expect(await t.claim(entry('k-conf', 'hash-1'))).toMatchObject({
        kind: 'duplicate',
        existing: { source: 'orders-0@3' },
      });
      expect(await t.h.holdsDedupRow('k-biz')).toBe(false);
      expect(await t.claim(entry('k-live'))).toMatchObject({
        kind: 'in-flight',
        existing: { leaseOwner: live.token, source: 'orders-0@5' },
      });
      expect(await t.store.complete(live)).toBe('completed');
    });

    it('sends nothing after a member left in flight: later members are not-sent and write nothing', async () => {
      const live = leaseOf(await t.store.claim(entry('k-live', 'hash-1', 'orders-0@1'), t.leaseFromNow()));

      const results = await t.store.commitGroup([
        t.member(entry('k-a', 'hash-1', 'orders-1@1'), [put('order#a')]),
        t.member(entry('k-live', 'hash-1', 'orders-1@2'), [put('order#live')]),
        t.member(entry('k-b', 'hash-1', 'orders-1@3'), [put('order#b')]),
        t.member(entry('k-c', 'hash-1', 'orders-1@4'), [put('order#c'), requireItem('account#missing')]),
      ]);

      expect(results.map((result) => result.kind)).toEqual([
        'committed',
        'in-flight',
        'not-sent',
        'not-sent',
      ]);
      expect(await t.h.appItem('order#a')).toEqual({ pk: 'order#a' });
      expect(await t.h.appItem('order#b')).toBeUndefined();
      expect(await t.h.holdsDedupRow('k-b')).toBe(false);
      expect(await t.store.complete(live)).toBe('completed');
    });

    it('answers a group of one as commit does', async () => {
      expect(
        await t.store.commitGroup([t.member(entry('k1', 'hash-1', 'orders-0@1'), [put('order#o1')])]),
      ).toEqual([committed]);
      expect(
        await t.store.commitGroup([t.member(entry('k1', 'hash-1', 'orders-0@2'), [put('order#again')])]),
      ).toEqual([
        {
          kind: 'duplicate',
          existing: {
            status: 'COMPLETED',
            payloadHash: 'hash-1',
            leaseUntilMs: undefined,
            source: 'orders-0@1',
            expiresAtSeconds: START_MS / 1000 + TTL_SECONDS,
          },
        },
      ]);
      expect(
        await t.store.commitGroup([t.member(entry('k2'), [put('order#o2'), requireItem('account#missing')])]),
      ).toEqual([t.rejectedAt(1)]);
      expect(await t.store.commitGroup([t.member(entry('k3'))])).toEqual([committed]);

      expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1' });
      expect(await t.h.appItem('order#again')).toBeUndefined();
      expect(await t.h.appItem('order#o2')).toBeUndefined();
      expect(await t.h.holdsDedupRow('k2')).toBe(false);
      expect((await t.claim(entry('k3'))).kind).toBe('duplicate');
    });

    it('answers an empty group with no results', async () => {
      expect(await t.store.commitGroup([])).toEqual([]);
    });

    it('answers in member order, whichever member settles first', async () => {
      await t.commit(entry('k-dup', 'hash-1'), []);
      await t.commit(entry('k-conf', 'hash-1'), []);

      const results = await t.store.commitGroup([
        t.member(entry('k-biz2'), [put('order#b2'), put('audit#b2'), requireItem('account#missing-2')]),
        t.member(entry('k-conf', 'hash-2')),
        t.member(entry('k-new'), [put('order#new')]),
        t.member(entry('k-biz0'), [requireItem('account#missing-0'), put('order#b0')]),
        t.member(entry('k-dup', 'hash-1')),
        t.member(entry('k-last'), []),
      ]);

      expect(results).toEqual([
        t.rejectedAt(2),
        expect.objectContaining({ kind: 'conflict' }),
        committed,
        t.rejectedAt(0),
        expect.objectContaining({ kind: 'duplicate' }),
        committed,
      ]);
      expect(await t.h.appItem('order#new')).toEqual({ pk: 'order#new' });
      expect(await t.h.appItem('order#b2')).toBeUndefined();
      expect(await t.h.appItem('order#b0')).toBeUndefined();
      expect((await t.claim(entry('k-last'))).kind).toBe('duplicate');
    });

    // The caller cuts groups where two members would touch one item. A store that meets one anyway still
    // answers each member as if committed one after the other: DynamoDB refuses such a request outright and
    // the store commits the members one by one. (DynamoDB Local refuses it only when no condition fails: it
    // judges the actions in order, each seeing the ones before, and cancels the group with the reasons.)
    it('answers each member, one after the other, when two members write one item', async () => {
      const results = await t.store.commitGroup([
        t.member(entry('k1'), [put('order#shared', { by: 'k1' })]),
        t.member(entry('k2'), [put('order#k2')]),
        t.member(entry('k3'), [put('order#shared', { by: 'k3' }), put('order#k3')]),
      ]);

      expect(results).toEqual([committed, committed, committed]);
      expect(await t.h.appItem('order#shared')).toEqual({ pk: 'order#shared', by: 'k3' });
      expect(await t.h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
      expect(await t.h.appItem('order#k3')).toEqual({ pk: 'order#k3' });
      for (const key of ['k1', 'k2', 'k3']) expect((await t.claim(entry(key))).kind).toBe('duplicate');
    });

    it('rejects a later member whose condition fails on an item an earlier member of the group wrote', async () => {
      const results = await t.store.commitGroup([
        t.member(entry('k1'), [putIfAbsent('order#shared', { by: 'k1' })]),
        t.member(entry('k2'), [put('order#k2')]),
        t.member(entry('k3'), [putIfAbsent('order#shared', { by: 'k3' })]),
      ]);

      expect(results).toEqual([committed, committed, t.rejectedAt(0)]);
      expect(await t.h.appItem('order#shared')).toEqual({ pk: 'order#shared', by: 'k1' });
      expect(await t.h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
      expect(await t.h.holdsDedupRow('k3')).toBe(false);
    });

    it('answers the second copy of a key as the first copy duplicate when one key comes twice', async () => {
      const results = await t.store.commitGroup([
        t.member(entry('k1', 'hash-1', 'orders-0@1'), [put('order#first')]),
        t.member(entry('k2'), [put('order#k2')]),
        t.member(entry('k1', 'hash-1', 'orders-0@2'), [put('order#second')]),
      ]);

      expect(results).toEqual([
        committed,
        committed,
        {
          kind: 'duplicate',
          existing: expect.objectContaining({ status: 'COMPLETED', source: 'orders-0@1' }),
        },
      ]);
      expect(await t.h.appItem('order#first')).toEqual({ pk: 'order#first' });
      expect(await t.h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
      expect(await t.h.appItem('order#second')).toBeUndefined();
    });

    whenLimited(
      'rejects only the member whose item is over 400 KB; the ones before it commit, none after it is sent',
      async () => {
        const results = await t.store.commitGroup([
          t.member(entry('k1'), [put('order#o1')]),
          t.member(entry('k2'), [put('order#small'), put('order#huge', { blob: 'x'.repeat(400 * 1024) })]),
          t.member(entry('k3'), [put('order#o3')]),
        ]);

        expect(results).toEqual([
          committed,
          { kind: 'rejected', message: expect.stringMatching(/item size/i) },
          { kind: 'not-sent' },
        ]);
        expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1' });
        expect(await t.h.appItem('order#o3')).toBeUndefined();
        expect(await t.h.appItem('order#small')).toBeUndefined();
        expect(await t.h.holdsDedupRow('k2')).toBe(false);
      },
    );

    whenStoreConstraints(
      'rejects only the member that breaks a constraint of the store; the ones before it commit, none after it is sent',
      async () => {
        await t.commit(entry('seed'), [put('account#a1')]);

        const results = await t.store.commitGroup([
          t.member(entry('k1'), [put('order#o1')]),
          t.member(entry('k2'), [put('order#small'), insertUnique('account#a1')]),
          t.member(entry('k3'), [put('order#o3')]),
        ]);

        expect(results).toEqual([committed, t.h.constraintRejection, { kind: 'not-sent' }]);
        expect(await t.h.appItem('order#o1')).toEqual({ pk: 'order#o1' });
        expect(await t.h.appItem('order#small')).toBeUndefined();
        expect(await t.h.appItem('order#o3')).toBeUndefined();
        expect(await t.h.holdsDedupRow('k2')).toBe(false);
        expect(await t.h.holdsDedupRow('k3')).toBe(false);
        expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
      },
    );
  });
}
