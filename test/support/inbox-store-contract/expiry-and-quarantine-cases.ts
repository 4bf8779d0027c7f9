/** The contract's dedup window, judged by the store's own conditions, and its quarantine rows. */
import { describe, expect, it } from 'vitest';
import {
  type ContractTest,
  entry,
  FIRST_EXPIRED_MS,
  itWhen,
  LEASE_MS,
  leaseOf,
  put,
  quarantineEntry,
  TTL_SECONDS,
} from './contract-test.js';

export function describeExpiryAndQuarantineCases(t: ContractTest): void {
  describe('expiry', () => {
    it('keeps a finished row for the whole dedup window, to its last millisecond', async () => {
      await t.finish(entry('k1'));
      t.at(FIRST_EXPIRED_MS - 1);

      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
      expect((await t.claim(entry('k1', 'hash-2'))).kind).toBe('conflict');
      if (t.transactions === true) expect((await t.commit(entry('k1', 'hash-2'), [])).kind).toBe('conflict');
    });

    it('treats a row past its TTL as absent for claim, though the store still holds it', async () => {
      await t.finish(entry('k1', 'hash-1'));
      t.at(FIRST_EXPIRED_MS);

      expect(await t.h.holdsDedupRow('k1')).toBe(true);
      expect((await t.claim(entry('k1', 'hash-2'))).kind).toBe('claimed');
    });

    itWhen(t.transactions)(
      'treats a row past its TTL as absent for commit, and applies the effect again',
      async () => {
        await t.commit(entry('k1'), [put('order#first')]);
        t.at(FIRST_EXPIRED_MS);

        expect(await t.h.holdsDedupRow('k1')).toBe(true);
        expect(await t.commit(entry('k1'), [put('order#again')])).toEqual({ kind: 'committed' });
        expect(await t.h.appItem('order#again')).toBeDefined();
      },
    );

    it('treats an IN_PROGRESS row past its TTL as absent, even while its lease runs', async () => {
      await t.store.claim(entry('k1'), FIRST_EXPIRED_MS + LEASE_MS);
      t.at(FIRST_EXPIRED_MS);

      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
    });

    it('counts the window from the claim, not from the completion', async () => {
      const lease = leaseOf(await t.claim(entry('k1')));
      t.clock.advance(LEASE_MS / 2);
      await t.store.complete(lease);
      t.at(FIRST_EXPIRED_MS);

      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
    });

    it('gives a row written after an expiry a whole new window', async () => {
      await t.finish(entry('k1'));
      t.at(FIRST_EXPIRED_MS);
      await t.finish(entry('k1'));

      t.clock.advance(TTL_SECONDS * 1000);
      expect((await t.claim(entry('k1'))).kind).toBe('duplicate');
      t.clock.advance(1000);
      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
    });
  });

  describe('quarantine', () => {
    it('writes a record once: a redelivery is already quarantined, and the row is found', async () => {
      expect(await t.store.isQuarantined('orders-0@7')).toBe(false);

      expect(await t.store.quarantine(quarantineEntry('orders-0@7'))).toBe('quarantined');
      expect(await t.store.quarantine(quarantineEntry('orders-0@7', 'again'))).toBe('already-quarantined');
      expect(await t.store.isQuarantined('orders-0@7')).toBe(true);
      expect(await t.store.isQuarantined('orders-0@8')).toBe(false);
    });

    it('keeps quarantine rows past the dedup window: they wait for an operator', async () => {
      await t.store.quarantine(quarantineEntry('orders-0@7'));
      t.at(FIRST_EXPIRED_MS + 86_400_000);

      expect(await t.store.isQuarantined('orders-0@7')).toBe(true);
      expect(await t.store.quarantine(quarantineEntry('orders-0@7'))).toBe('already-quarantined');
    });

    it('keeps quarantine rows and dedup rows apart, even under one key text', async () => {
      await t.store.quarantine(quarantineEntry('k1'));

      expect((await t.claim(entry('k1'))).kind).toBe('claimed');
      expect(await t.store.isQuarantined('k1')).toBe(true);
      await t.finish(entry('k2'));
      expect(await t.store.isQuarantined('k2')).toBe(false);
      expect(await t.store.quarantine(quarantineEntry('k2'))).toBe('quarantined');
    });

    it('bounds coordinates to 1,024 bytes: two that share those bytes share one row', async () => {
      const prefix = 'orders-0@'.padEnd(1_024, '7');

      expect(await t.store.quarantine(quarantineEntry(`${prefix}1`))).toBe('quarantined');
      expect(await t.store.quarantine(quarantineEntry(`${prefix}2`))).toBe('already-quarantined');
      expect(await t.store.isQuarantined(`${prefix}3`)).toBe(true);
    });
  });
}
