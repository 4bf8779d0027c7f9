/** The contract's side-effect mode: claim, complete and release under a fenced lease. */
import { describe, expect, it } from 'vitest';
import { utf8Prefix } from '../../../lambdas/core/bounded-text.js';
import { type ContractTest, entry, LEASE_MS, leaseOf, START_MS, TTL_SECONDS } from './contract-test.js';

export function describeLeaseCases(t: ContractTest): void {
  describe('claim', () => {
    it('claims a new key: a lease for that key, with a fresh token and the asked deadline', async () => {
      const until = t.leaseFromNow();

      const first = await t.store.claim(entry('k1'), until);
      const second = await t.store.claim(entry('k2'), until);

      expect(first).toEqual({
        kind: 'claimed',
        lease: { dedupKey: 'k1', token: expect.any(String), leaseUntilMs: until },
      });
      expect(leaseOf(first).token).not.toBe('');
      expect(leaseOf(second).token).not.toBe(leaseOf(first).token);
    });

    it('reports in-flight, with the holder, while another attempt holds a live lease, up to its last millisecond', async () => {
      const until = t.leaseFromNow();
      const holder = leaseOf(await t.store.claim(entry('k1', 'hash-1', 'orders-0@1'), until));
      t.at(until);

      const second = await t.store.claim(entry('k1', 'hash-1', 'orders-1@9'), t.leaseFromNow());

      expect(second).toEqual({
        kind: 'in-flight',
        existing: {
          status: 'IN_PROGRESS',
          payloadHash: 'hash-1',
          leaseUntilMs: until,
          leaseOwner: holder.token,
          source: 'orders-0@1',
          expiresAtSeconds: START_MS / 1000 + TTL_SECONDS,
        },
      });
    });

    it('reports in-flight, not a conflict, when the live lease holder came with another payload', async () => {
      await t.claim(entry('k1', 'hash-1'));

      expect((await t.claim(entry('k1', 'hash-2'))).kind).toBe('in-flight');
    });

    it('takes over a key the millisecond after the holder lease ends, with a new token', async () => {
      const until = t.leaseFromNow();
      const stale = leaseOf(await t.store.claim(entry('k1'), until));
      t.at(until + 1);

      const takeover = await t.claim(entry('k1'));

      expect(takeover.kind).toBe('claimed');
      expect(leaseOf(takeover).token).not.toBe(stale.token);
      expect((await t.claim(entry('k1'))).kind).toBe('in-flight');
    });

    it('reports a duplicate, with the finished row, for a completed key and the same payload', async () => {
      await t.store.complete(leaseOf(await t.claim(entry('k1', 'hash-1', 'orders-0@1'))));
      t.clock.advance(LEASE_MS * 10);

      const again = await t.claim(entry('k1', 'hash-1', 'orders-0@2'));

      expect(again).toEqual({
        kind: 'duplicate',
        existing: {
          status: 'COMPLETED',
          payloadHash: 'hash-1',
          leaseUntilMs: undefined,
          source: 'orders-0@1',
          expiresAtSeconds: START_MS / 1000 + TTL_SECONDS,
        },
      });
    });

    it('reports a conflict, with the finished row, for a completed key and another payload', async () => {
      await t.store.complete(leaseOf(await t.claim(entry('k1', 'hash-1'))));

      const other = await t.claim(entry('k1', 'hash-2'));

      expect(other).toMatchObject({
        kind: 'conflict',
        existing: { status: 'COMPLETED', payloadHash: 'hash-1' },
      });
    });

    it('keeps the source bounded to 1,024 UTF-8 bytes, as its prefix', async () => {
      const source = `${'é'.repeat(600)}-0@1`;
      await t.claim(entry('k1', 'hash-1', source));

      const again = await t.claim(entry('k1'));

      expect(again).toMatchObject({ kind: 'in-flight', existing: { source: utf8Prefix(source, 1_024) } });
      const stored = again.kind === 'in-flight' ? (again.existing.source ?? '') : '';
      expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(1_024);
      expect(source.startsWith(stored)).toBe(true);
    });
  });

  describe('complete', () => {
    it('completes the row with its own lease: the key is then a duplicate', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));

      expect(await t.store.complete(lease)).toBe('completed');
      expect(await t.claim(entry('k1'))).toMatchObject({
        kind: 'duplicate',
        existing: { status: 'COMPLETED', leaseUntilMs: undefined },
      });
    });

    it('answers completed again to the same lease (a retried completion)', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));
      await t.store.complete(lease);

      expect(await t.store.complete(lease)).toBe('completed');
      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
    });

    it('completes after the lease deadline when no other attempt took the key: the token fences, not the time', async () => {
      const until = t.leaseFromNow();
      const lease = leaseOf(await t.store.claim(entry('k1'), until));
      t.at(until + 1);

      expect(await t.store.complete(lease)).toBe('completed');
      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
    });

    it('reports a lost lease after another attempt took the key over, and leaves the new holder in charge', async () => {
      const until = t.leaseFromNow();
      const stale = leaseOf(await t.store.claim(entry('k1'), until));
      t.at(until + 1);
      const fresh = leaseOf(await t.claim(entry('k1')));

      expect(await t.store.complete(stale)).toBe('lease-lost');
      expect(await t.claim(entry('k1'))).toMatchObject({
        kind: 'in-flight',
        existing: { leaseOwner: fresh.token },
      });
      expect(await t.store.complete(fresh)).toBe('completed');
    });

    it('reports a lost lease when the key has no row (released, or never claimed)', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));
      await t.store.release(lease);

      expect(await t.store.complete(lease)).toBe('lease-lost');
      expect(
        await t.store.complete({ dedupKey: 'never', token: 'made-up', leaseUntilMs: t.leaseFromNow() }),
      ).toBe('lease-lost');
      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
    });
  });

  describe('release', () => {
    it('deletes the row with its own lease: the key is free again, for any payload', async () => {
      const lease = leaseOf(await t.claim(entry('k1', 'hash-1')));

      expect(await t.store.release(lease)).toBe('released');
      expect(await t.h.holdsDedupRow('k1')).toBe(false);
      expect((await t.claim(entry('k1', 'hash-2'))).kind).toBe('claimed');
    });

    it('reports a lost lease after another attempt took the key over, and keeps that attempt row', async () => {
      const until = t.leaseFromNow();
      const stale = leaseOf(await t.store.claim(entry('k1'), until));
      t.at(until + 1);
      const fresh = leaseOf(await t.claim(entry('k1')));

      expect(await t.store.release(stale)).toBe('lease-lost');
      expect(await t.claim(entry('k1'))).toMatchObject({
        kind: 'in-flight',
        existing: { leaseOwner: fresh.token },
      });
    });

    it('reports a lost lease once its own attempt completed the row, which stays completed', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));
      await t.store.complete(lease);

      expect(await t.store.release(lease)).toBe('lease-lost');
      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
    });

    it('answers released when the key has no row: nobody holds it (a retried release)', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));
      await t.store.release(lease);

      expect(await t.store.release(lease)).toBe('released');
      expect(
        await t.store.release({ dedupKey: 'never', token: 'made-up', leaseUntilMs: t.leaseFromNow() }),
      ).toBe('released');
    });
  });
}
