/**
 * The InboxStore port's behaviours, once, for every implementation: the DynamoDB store runs them against
 * DynamoDB Local (test/integration/store), the in-memory store with no I/O (test/unit/core). What only
 * DynamoDB can show (its limits on item content) runs where the harness says the store models it, and is
 * reported skipped, with the reason, elsewhere.
 *
 * Pure on purpose: nothing here starts a process or asks vitest for the DynamoDB endpoint, so the memory
 * store's run stays a unit test. Per-implementation details (the DynamoDB row's attributes, the SDK's
 * retries, the quarantine row's layout) stay in their own tests.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { utf8Prefix } from '../../lambdas/core/bounded-text.js';
import type { EffectWrite, Lease } from '../../lambdas/core/effect.js';
import type {
  ClaimResult,
  CommitMember,
  CommitResult,
  InboxEntry,
  InboxStore,
  QuarantineEntry,
} from '../../lambdas/core/inbox-store.js';
import { ManualClock } from './clocks.js';

/** What a store can show: `true`, or why it cannot (the case is then skipped, and says so). */
export type Capability = true | { readonly unsupported: string };

export interface InboxStoreCapabilities {
  /**
   * DynamoDB refuses some content outright (an item over 400 KB, a key over 2,048 bytes): the commit is
   * `rejected`. A store that cannot model these limits says why.
   */
  readonly contentLimits: Capability;
}

export interface InboxStoreHarness {
  readonly store: InboxStore;
  /** A table keyed by `pk` (a string) that effect writes may target. */
  readonly appTableName: string;
  /** An app-table item as the committed effects left it. */
  appItem(pk: string): Promise<Record<string, unknown> | undefined>;
  /** Whether the store still holds the dedup row of `dedupKey`, expired or not (TTL deletion is lazy). */
  holdsDedupRow(dedupKey: string): Promise<boolean>;
}

export interface HarnessOptions {
  /** The store's only clock: tests move time with it. */
  readonly clock: ManualClock;
  /** The dedup window the store must use. */
  readonly ttlSeconds: number;
}

export interface InboxStoreContractSubject {
  readonly capabilities: InboxStoreCapabilities;
  /** A fresh, empty store per test. */
  makeHarness(options: HarnessOptions): Promise<InboxStoreHarness>;
}

const TTL_SECONDS = 3_600;
const LEASE_MS = 60_000;
/**
 * A whole second, a year ahead of the wall clock: a row the store must treat as expired is never old
 * enough for a TTL sweeper (DynamoDB Local's, if it runs one) to delete it, so expiry is decided by the
 * store's own conditions, as it must be in AWS where deletion comes days late.
 */
const START_MS = (Math.floor(Date.now() / 1000) + 365 * 86_400) * 1000;
/** The first millisecond at which a row written at START_MS counts as expired (`expires_at < now`, in seconds). */
const FIRST_EXPIRED_MS = START_MS + (TTL_SECONDS + 1) * 1000;

const entry = (dedupKey: string, payloadHash = 'hash-1', source = 'orders-0@1'): InboxEntry => ({
  dedupKey,
  payloadHash,
  source,
});

const quarantineEntry = (coordinates: string, message = 'not JSON'): QuarantineEntry => ({
  coordinates,
  reason: 'invalid-event',
  message,
  record: {
    topic: 'orders',
    partition: 0,
    offset: 7,
    timestamp: 1,
    timestampType: 'CREATE_TIME',
    key: null,
    value: 'bm90IGpzb24=',
    headers: [],
  },
});

function leaseOf(result: ClaimResult): Lease {
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
  return result.lease;
}

export function describeInboxStoreContract(name: string, subject: InboxStoreContractSubject): void {
  describe(`${name}: the InboxStore contract`, () => {
    let h: InboxStoreHarness;
    let store: InboxStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(START_MS);
      h = await subject.makeHarness({ clock, ttlSeconds: TTL_SECONDS });
      store = h.store;
    });

    const leaseFromNow = () => clock.nowMs() + LEASE_MS;
    const claim = (e: InboxEntry) => store.claim(e, leaseFromNow());
    /** Moves the clock to an absolute time: tests read as a timeline. */
    const at = (ms: number) => clock.advance(ms - clock.nowMs());

    const put = (pk: string, extra: Record<string, unknown> = {}): EffectWrite => ({
      Put: { TableName: h.appTableName, Item: { pk, ...extra } },
    });
    /** A business rule: the item must (not) exist yet. */
    const putIfAbsent = (pk: string, extra: Record<string, unknown> = {}): EffectWrite => ({
      Put: {
        TableName: h.appTableName,
        Item: { pk, ...extra },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': 'pk' },
      },
    });
    const requireItem = (pk: string): EffectWrite => ({
      ConditionCheck: {
        TableName: h.appTableName,
        Key: { pk },
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#pk': 'pk' },
      },
    });
    const remove = (pk: string): EffectWrite => ({ Delete: { TableName: h.appTableName, Key: { pk } } });

    const limits = subject.capabilities.contentLimits;
    const whenLimited = (title: string) =>
      limits === true ? title : `${title} (skipped: ${limits.unsupported})`;

    describe('claim', () => {
      it('claims a new key: a lease for that key, with a fresh token and the asked deadline', async () => {
        const until = leaseFromNow();

        const first = await store.claim(entry('k1'), until);
        const second = await store.claim(entry('k2'), until);

        expect(first).toEqual({
          kind: 'claimed',
          lease: { dedupKey: 'k1', token: expect.any(String), leaseUntilMs: until },
        });
        expect(leaseOf(first).token).not.toBe('');
        expect(leaseOf(second).token).not.toBe(leaseOf(first).token);
      });

      it('reports in-flight, with the holder, while another attempt holds a live lease, up to its last millisecond', async () => {
        const until = leaseFromNow();
        const holder = leaseOf(await store.claim(entry('k1', 'hash-1', 'orders-0@1'), until));
        at(until);

        const second = await store.claim(entry('k1', 'hash-1', 'orders-1@9'), leaseFromNow());

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
        await claim(entry('k1', 'hash-1'));

        expect((await claim(entry('k1', 'hash-2'))).kind).toBe('in-flight');
      });

      it('takes over a key the millisecond after the holder lease ends, with a new token', async () => {
        const until = leaseFromNow();
        const stale = leaseOf(await store.claim(entry('k1'), until));
        at(until + 1);

        const takeover = await claim(entry('k1'));

        expect(takeover.kind).toBe('claimed');
        expect(leaseOf(takeover).token).not.toBe(stale.token);
        expect((await claim(entry('k1'))).kind).toBe('in-flight');
      });

      it('reports a duplicate, with the finished row, for a completed key and the same payload', async () => {
        await store.complete(leaseOf(await claim(entry('k1', 'hash-1', 'orders-0@1'))));
        clock.advance(LEASE_MS * 10);

        const again = await claim(entry('k1', 'hash-1', 'orders-0@2'));

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
        await store.complete(leaseOf(await claim(entry('k1', 'hash-1'))));

        const other = await claim(entry('k1', 'hash-2'));

        expect(other).toMatchObject({
          kind: 'conflict',
          existing: { status: 'COMPLETED', payloadHash: 'hash-1' },
        });
      });

      it('keeps the source bounded to 1,024 UTF-8 bytes, as its prefix', async () => {
        const source = `${'é'.repeat(600)}-0@1`;
        await claim(entry('k1', 'hash-1', source));

        const again = await claim(entry('k1'));

        expect(again).toMatchObject({ kind: 'in-flight', existing: { source: utf8Prefix(source, 1_024) } });
        const stored = again.kind === 'in-flight' ? (again.existing.source ?? '') : '';
        expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(1_024);
        expect(source.startsWith(stored)).toBe(true);
      });
    });

    describe('complete', () => {
      it('completes the row with its own lease: the key is then a duplicate', async () => {
        const lease = leaseOf(await claim(entry('k1')));

        expect(await store.complete(lease)).toBe('completed');
        expect(await claim(entry('k1'))).toMatchObject({
          kind: 'duplicate',
          existing: { status: 'COMPLETED', leaseUntilMs: undefined },
        });
      });

      it('answers completed again to the same lease (a retried completion)', async () => {
        const lease = leaseOf(await claim(entry('k1')));
        await store.complete(lease);

        expect(await store.complete(lease)).toBe('completed');
        expect((await claim(entry('k1'))).kind).toBe('duplicate');
      });

      it('completes after the lease deadline when no other attempt took the key: the token fences, not the time', async () => {
        const until = leaseFromNow();
        const lease = leaseOf(await store.claim(entry('k1'), until));
        at(until + 1);

        expect(await store.complete(lease)).toBe('completed');
        expect((await claim(entry('k1'))).kind).toBe('duplicate');
      });

      it('reports a lost lease after another attempt took the key over, and leaves the new holder in charge', async () => {
        const until = leaseFromNow();
        const stale = leaseOf(await store.claim(entry('k1'), until));
        at(until + 1);
        const fresh = leaseOf(await claim(entry('k1')));

        expect(await store.complete(stale)).toBe('lease-lost');
        expect(await claim(entry('k1'))).toMatchObject({
          kind: 'in-flight',
          existing: { leaseOwner: fresh.token },
        });
        expect(await store.complete(fresh)).toBe('completed');
      });

      it('reports a lost lease when the key has no row (released, or never claimed)', async () => {
        const lease = leaseOf(await claim(entry('k1')));
        await store.release(lease);

        expect(await store.complete(lease)).toBe('lease-lost');
        expect(
          await store.complete({ dedupKey: 'never', token: 'made-up', leaseUntilMs: leaseFromNow() }),
        ).toBe('lease-lost');
        expect((await claim(entry('k1'))).kind).toBe('claimed');
      });
    });

    describe('release', () => {
      it('deletes the row with its own lease: the key is free again, for any payload', async () => {
        const lease = leaseOf(await claim(entry('k1', 'hash-1')));

        expect(await store.release(lease)).toBe('released');
        expect(await h.holdsDedupRow('k1')).toBe(false);
        expect((await claim(entry('k1', 'hash-2'))).kind).toBe('claimed');
      });

      it('reports a lost lease after another attempt took the key over, and keeps that attempt row', async () => {
        const until = leaseFromNow();
        const stale = leaseOf(await store.claim(entry('k1'), until));
        at(until + 1);
        const fresh = leaseOf(await claim(entry('k1')));

        expect(await store.release(stale)).toBe('lease-lost');
        expect(await claim(entry('k1'))).toMatchObject({
          kind: 'in-flight',
          existing: { leaseOwner: fresh.token },
        });
      });

      it('reports a lost lease once its own attempt completed the row, which stays completed', async () => {
        const lease = leaseOf(await claim(entry('k1')));
        await store.complete(lease);

        expect(await store.release(lease)).toBe('lease-lost');
        expect((await claim(entry('k1'))).kind).toBe('duplicate');
      });

      it('answers released when the key has no row: nobody holds it (a retried release)', async () => {
        const lease = leaseOf(await claim(entry('k1')));
        await store.release(lease);

        expect(await store.release(lease)).toBe('released');
        expect(
          await store.release({ dedupKey: 'never', token: 'made-up', leaseUntilMs: leaseFromNow() }),
        ).toBe('released');
      });
    });

    describe('commit', () => {
      it('writes the inbox row and the effect writes together', async () => {
        await store.commit(entry('seed'), [put('account#a1', { balance: 5 }), put('cart#a1')]);

        const result = await store.commit(entry('k1'), [
          put('order#o1', { total: 10 }),
          requireItem('account#a1'),
          remove('cart#a1'),
        ]);

        expect(result).toEqual({ kind: 'committed' });
        expect(await h.appItem('order#o1')).toEqual({ pk: 'order#o1', total: 10 });
        expect(await h.appItem('account#a1')).toEqual({ pk: 'account#a1', balance: 5 });
        expect(await h.appItem('cart#a1')).toBeUndefined();
        expect(await claim(entry('k1'))).toMatchObject({
          kind: 'duplicate',
          existing: { status: 'COMPLETED', payloadHash: 'hash-1', source: 'orders-0@1' },
        });
      });

      it('commits the inbox row alone when the effect has no writes', async () => {
        expect(await store.commit(entry('k1'), [])).toEqual({ kind: 'committed' });
        expect((await store.commit(entry('k1'), [])).kind).toBe('duplicate');
      });

      it('reports a duplicate for the same payload and a conflict for another, writing nothing', async () => {
        await store.commit(entry('k1', 'hash-1', 'orders-0@1'), [put('order#first')]);

        const duplicate = await store.commit(entry('k1', 'hash-1', 'orders-0@2'), [put('order#dup')]);
        const conflict = await store.commit(entry('k1', 'hash-2', 'orders-0@3'), [put('order#conflict')]);

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
        expect(await h.appItem('order#dup')).toBeUndefined();
        expect(await h.appItem('order#conflict')).toBeUndefined();
      });

      it('reports in-flight, writing nothing, while a side-effect attempt holds a live lease', async () => {
        const holder = leaseOf(await claim(entry('k1')));

        const result = await store.commit(entry('k1'), [put('order#o1')]);

        expect(result).toMatchObject({ kind: 'in-flight', existing: { leaseOwner: holder.token } });
        expect(await h.appItem('order#o1')).toBeUndefined();
        expect(await store.complete(holder)).toBe('completed');
      });

      it('takes over an expired lease; the stale attempt can then neither complete nor release', async () => {
        const until = leaseFromNow();
        const stale = leaseOf(await store.claim(entry('k1'), until));
        at(until + 1);

        expect(await store.commit(entry('k1'), [put('order#o1')])).toEqual({ kind: 'committed' });
        expect(await h.appItem('order#o1')).toBeDefined();
        expect(await store.complete(stale)).toBe('lease-lost');
        expect(await store.release(stale)).toBe('lease-lost');
        expect((await claim(entry('k1'))).kind).toBe('duplicate');
      });

      it('reports a business rejection with the failing write index, and writes neither row nor effects', async () => {
        const result = await store.commit(entry('k1'), [put('order#o1'), requireItem('account#missing')]);

        expect(result).toEqual({ kind: 'business-rejected', writeIndex: 1, message: expect.any(String) });
        expect(await h.appItem('order#o1')).toBeUndefined();
        expect(await h.holdsDedupRow('k1')).toBe(false);
        expect(await store.commit(entry('k1'), [put('order#o1')])).toEqual({ kind: 'committed' });
      });

      it('judges an effect condition on what earlier commits wrote', async () => {
        expect(await store.commit(entry('k1'), [putIfAbsent('order#o1', { by: 'k1' })])).toEqual({
          kind: 'committed',
        });

        const second = await store.commit(entry('k2'), [
          put('audit#k2'),
          putIfAbsent('order#o1', { by: 'k2' }),
        ]);

        expect(second).toMatchObject({ kind: 'business-rejected', writeIndex: 1 });
        expect(await h.appItem('order#o1')).toEqual({ pk: 'order#o1', by: 'k1' });
        expect(await h.appItem('audit#k2')).toBeUndefined();
      });

      it('names the first failing write when several conditions fail', async () => {
        const result = await store.commit(entry('k1'), [
          put('order#o1'),
          requireItem('account#a'),
          requireItem('account#b'),
        ]);

        expect(result).toMatchObject({ kind: 'business-rejected', writeIndex: 1 });
      });

      it('reports a duplicate, not a business rejection, when the key is finished and an effect condition fails too', async () => {
        await store.commit(entry('k1'), []);

        const again = await store.commit(entry('k1'), [requireItem('account#missing')]);

        expect(again.kind).toBe('duplicate');
      });

      it('rejects a transaction with two writes on one item, writing nothing and leaving the key free', async () => {
        const result = await store.commit(entry('k1'), [put('order#o1'), put('order#o1', { again: true })]);

        expect(result).toMatchObject({
          kind: 'rejected',
          message: expect.stringMatching(/multiple operations on one item/i),
        });
        expect(await h.appItem('order#o1')).toBeUndefined();
        expect(await h.holdsDedupRow('k1')).toBe(false);
        expect((await claim(entry('k1'))).kind).toBe('claimed');
      });

      it.skipIf(limits !== true)(
        whenLimited('rejects an effect item over 400 KB, writing nothing and leaving the key free'),
        async () => {
          const result = await store.commit(entry('k1'), [
            put('order#small'),
            put('order#huge', { blob: 'x'.repeat(400 * 1024) }),
          ]);

          expect(result).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/item size/i) });
          expect(await h.appItem('order#small')).toBeUndefined();
          expect(await h.holdsDedupRow('k1')).toBe(false);
          expect((await claim(entry('k1'))).kind).toBe('claimed');
        },
      );

      it.skipIf(limits !== true)(
        whenLimited('rejects an effect key over 2,048 bytes, writing nothing'),
        async () => {
          const result = await store.commit(entry('k1'), [put('order#small'), put('x'.repeat(2_049))]);

          expect(result.kind).toBe('rejected');
          expect(await h.appItem('order#small')).toBeUndefined();
          expect(await h.holdsDedupRow('k1')).toBe(false);
        },
      );
    });

    describe('commitGroup', () => {
      const member = (e: InboxEntry, writes: EffectWrite[] = []): CommitMember => ({ entry: e, writes });
      const committed: CommitResult = { kind: 'committed' };
      /** A result in a word, so that two swapped answers show. */
      const summary = (result: CommitResult) =>
        result.kind === 'business-rejected' ? `business-rejected@${result.writeIndex}` : result.kind;

      it('commits a group of new records: every inbox row and every effect write', async () => {
        await store.commit(entry('seed'), [put('account#a1', { balance: 5 }), put('cart#a1')]);

        const results = await store.commitGroup([
          member(entry('k1', 'hash-1', 'orders-0@1'), [
            put('order#o1', { total: 10 }),
            requireItem('account#a1'),
          ]),
          member(entry('k2', 'hash-2', 'orders-0@2'), [remove('cart#a1')]),
          member(entry('k3', 'hash-3', 'orders-0@3')),
          member(entry('k4', 'hash-4', 'orders-0@4'), [put('order#o4', { total: 4 }), put('audit#o4')]),
        ]);

        expect(results).toEqual([committed, committed, committed, committed]);
        expect(await h.appItem('order#o1')).toEqual({ pk: 'order#o1', total: 10 });
        expect(await h.appItem('account#a1')).toEqual({ pk: 'account#a1', balance: 5 });
        expect(await h.appItem('cart#a1')).toBeUndefined();
        expect(await h.appItem('order#o4')).toEqual({ pk: 'order#o4', total: 4 });
        expect(await h.appItem('audit#o4')).toEqual({ pk: 'audit#o4' });
        for (const [key, payloadHash, source] of [
          ['k1', 'hash-1', 'orders-0@1'],
          ['k2', 'hash-2', 'orders-0@2'],
          ['k3', 'hash-3', 'orders-0@3'],
          ['k4', 'hash-4', 'orders-0@4'],
        ] as const) {
          expect(await claim(entry(key, payloadHash))).toMatchObject({
            kind: 'duplicate',
            existing: { status: 'COMPLETED', payloadHash, source },
          });
        }
      });

      it('answers each member as commit alone would when a duplicate, a conflict, a live lease, a business rejection and taken-over rows sit among new records', async () => {
        // A finished row that the group meets past its TTL; the other rows are written in the next window.
        await store.commit(entry('k-old', 'hash-old', 'orders-0@1'), [put('order#old')]);
        at(FIRST_EXPIRED_MS);
        const windowEnd = Math.floor(clock.nowMs() / 1000) + TTL_SECONDS;
        await store.commit(entry('k-dup', 'hash-1', 'orders-0@2'), [put('order#dup-first')]);
        await store.commit(entry('k-conf', 'hash-1', 'orders-0@3'), []);
        const staleUntil = clock.nowMs() + 1_000;
        const stale = leaseOf(await store.claim(entry('k-stale', 'hash-1', 'orders-0@4'), staleUntil));
        at(staleUntil + 1);
        const liveWindowEnd = Math.floor(clock.nowMs() / 1000) + TTL_SECONDS;
        const live = leaseOf(await store.claim(entry('k-live', 'hash-1', 'orders-0@5'), leaseFromNow()));

        const results = await store.commitGroup([
          member(entry('k-new1', 'hash-1', 'orders-1@1'), [put('order#new1')]),
          member(entry('k-dup', 'hash-1', 'orders-1@2'), [put('order#dup')]),
          member(entry('k-conf', 'hash-2', 'orders-1@3'), [put('order#conf')]),
          member(entry('k-biz', 'hash-1', 'orders-1@5'), [put('order#biz'), requireItem('account#missing')]),
          member(entry('k-stale', 'hash-1', 'orders-1@6'), [put('order#stale')]),
          member(entry('k-old', 'hash-2', 'orders-1@7'), [put('order#old-again')]),
          member(entry('k-new2', 'hash-1', 'orders-1@8'), [put('order#new2')]),
          // Last: nothing after a member left in flight is sent (see the next case).
          member(entry('k-live', 'hash-1', 'orders-1@9'), [put('order#live')]),
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
          { kind: 'business-rejected', writeIndex: 1, message: expect.any(String) },
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
          expect(await h.appItem(pk)).toEqual({ pk });
        }
        for (const [key, payloadHash, source] of [
          ['k-new1', 'hash-1', 'orders-1@1'],
          ['k-stale', 'hash-1', 'orders-1@6'],
          ['k-old', 'hash-2', 'orders-1@7'],
          ['k-new2', 'hash-1', 'orders-1@8'],
        ] as const) {
          expect(await claim(entry(key, payloadHash))).toMatchObject({
            kind: 'duplicate',
            existing: { status: 'COMPLETED', payloadHash, source },
          });
        }
        expect(await store.complete(stale)).toBe('lease-lost');
        // The others wrote nothing, and the rows they met are as they were.
        for (const pk of ['order#dup', 'order#conf', 'order#live', 'order#biz']) {
          expect(await h.appItem(pk)).toBeUndefined();
        }
        expect(await h.appItem('order#dup-first')).toEqual({ pk: 'order#dup-first' });
        expect(await claim(entry('k-dup', 'hash-1'))).toMatchObject({
          kind: 'duplicate',
          existing: { source: 'orders-0@2' },
        });
        expect(await claim(entry('k-conf', 'hash-1'))).toMatchObject({
          kind: 'duplicate',
          existing: { source: 'orders-0@3' },
        });
        expect(await h.holdsDedupRow('k-biz')).toBe(false);
        expect(await claim(entry('k-live'))).toMatchObject({
          kind: 'in-flight',
          existing: { leaseOwner: live.token, source: 'orders-0@5' },
        });
        expect(await store.complete(live)).toBe('completed');
      });

      it('sends nothing after a member left in flight: later members are not-sent and write nothing', async () => {
        const live = leaseOf(await store.claim(entry('k-live', 'hash-1', 'orders-0@1'), leaseFromNow()));

        const results = await store.commitGroup([
          member(entry('k-a', 'hash-1', 'orders-1@1'), [put('order#a')]),
          member(entry('k-live', 'hash-1', 'orders-1@2'), [put('order#live')]),
          member(entry('k-b', 'hash-1', 'orders-1@3'), [put('order#b')]),
          member(entry('k-c', 'hash-1', 'orders-1@4'), [put('order#c'), requireItem('account#missing')]),
        ]);

        expect(results.map((result) => result.kind)).toEqual([
          'committed',
          'in-flight',
          'not-sent',
          'not-sent',
        ]);
        expect(await h.appItem('order#a')).toEqual({ pk: 'order#a' });
        expect(await h.appItem('order#b')).toBeUndefined();
        expect(await h.holdsDedupRow('k-b')).toBe(false);
        expect(await store.complete(live)).toBe('completed');
      });

      it('answers a group of one as commit does', async () => {
        expect(
          await store.commitGroup([member(entry('k1', 'hash-1', 'orders-0@1'), [put('order#o1')])]),
        ).toEqual([committed]);
        expect(
          await store.commitGroup([member(entry('k1', 'hash-1', 'orders-0@2'), [put('order#again')])]),
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
          await store.commitGroup([member(entry('k2'), [put('order#o2'), requireItem('account#missing')])]),
        ).toEqual([{ kind: 'business-rejected', writeIndex: 1, message: expect.any(String) }]);
        expect(await store.commitGroup([member(entry('k3'))])).toEqual([committed]);

        expect(await h.appItem('order#o1')).toEqual({ pk: 'order#o1' });
        expect(await h.appItem('order#again')).toBeUndefined();
        expect(await h.appItem('order#o2')).toBeUndefined();
        expect(await h.holdsDedupRow('k2')).toBe(false);
        expect((await claim(entry('k3'))).kind).toBe('duplicate');
      });

      it('answers an empty group with no results', async () => {
        expect(await store.commitGroup([])).toEqual([]);
      });

      it('answers in member order, whichever member settles first', async () => {
        await store.commit(entry('k-dup', 'hash-1'), []);
        await store.commit(entry('k-conf', 'hash-1'), []);

        const results = await store.commitGroup([
          member(entry('k-biz2'), [put('order#b2'), put('audit#b2'), requireItem('account#missing-2')]),
          member(entry('k-conf', 'hash-2')),
          member(entry('k-new'), [put('order#new')]),
          member(entry('k-biz0'), [requireItem('account#missing-0'), put('order#b0')]),
          member(entry('k-dup', 'hash-1')),
          member(entry('k-last'), []),
        ]);

        expect(results.map(summary)).toEqual([
          'business-rejected@2',
          'conflict',
          'committed',
          'business-rejected@0',
          'duplicate',
          'committed',
        ]);
        expect(await h.appItem('order#new')).toEqual({ pk: 'order#new' });
        expect(await h.appItem('order#b2')).toBeUndefined();
        expect(await h.appItem('order#b0')).toBeUndefined();
        expect((await claim(entry('k-last'))).kind).toBe('duplicate');
      });

      // The caller cuts groups where two members would touch one item. A store that meets one anyway still
      // answers each member as if committed one after the other: DynamoDB refuses such a request outright and
      // the store commits the members one by one. (DynamoDB Local refuses it only when no condition fails: it
      // judges the actions in order, each seeing the ones before, and cancels the group with the reasons.)
      it('answers each member, one after the other, when two members write one item', async () => {
        const results = await store.commitGroup([
          member(entry('k1'), [put('order#shared', { by: 'k1' })]),
          member(entry('k2'), [put('order#k2')]),
          member(entry('k3'), [put('order#shared', { by: 'k3' }), put('order#k3')]),
        ]);

        expect(results).toEqual([committed, committed, committed]);
        expect(await h.appItem('order#shared')).toEqual({ pk: 'order#shared', by: 'k3' });
        expect(await h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
        expect(await h.appItem('order#k3')).toEqual({ pk: 'order#k3' });
        for (const key of ['k1', 'k2', 'k3']) expect((await claim(entry(key))).kind).toBe('duplicate');
      });

      it('rejects a later member whose condition fails on an item an earlier member of the group wrote', async () => {
        const results = await store.commitGroup([
          member(entry('k1'), [putIfAbsent('order#shared', { by: 'k1' })]),
          member(entry('k2'), [put('order#k2')]),
          member(entry('k3'), [putIfAbsent('order#shared', { by: 'k3' })]),
        ]);

        expect(results).toEqual([
          committed,
          committed,
          { kind: 'business-rejected', writeIndex: 0, message: expect.any(String) },
        ]);
        expect(await h.appItem('order#shared')).toEqual({ pk: 'order#shared', by: 'k1' });
        expect(await h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
        expect(await h.holdsDedupRow('k3')).toBe(false);
      });

      it('answers the second copy of a key as the first copy duplicate when one key comes twice', async () => {
        const results = await store.commitGroup([
          member(entry('k1', 'hash-1', 'orders-0@1'), [put('order#first')]),
          member(entry('k2'), [put('order#k2')]),
          member(entry('k1', 'hash-1', 'orders-0@2'), [put('order#second')]),
        ]);

        expect(results).toEqual([
          committed,
          committed,
          {
            kind: 'duplicate',
            existing: expect.objectContaining({ status: 'COMPLETED', source: 'orders-0@1' }),
          },
        ]);
        expect(await h.appItem('order#first')).toEqual({ pk: 'order#first' });
        expect(await h.appItem('order#k2')).toEqual({ pk: 'order#k2' });
        expect(await h.appItem('order#second')).toBeUndefined();
      });

      it.skipIf(limits !== true)(
        whenLimited(
          'rejects only the member whose item is over 400 KB; the ones before it commit, none after it is sent',
        ),
        async () => {
          const results = await store.commitGroup([
            member(entry('k1'), [put('order#o1')]),
            member(entry('k2'), [put('order#small'), put('order#huge', { blob: 'x'.repeat(400 * 1024) })]),
            member(entry('k3'), [put('order#o3')]),
          ]);

          expect(results).toEqual([
            committed,
            { kind: 'rejected', message: expect.stringMatching(/item size/i) },
            { kind: 'not-sent' },
          ]);
          expect(await h.appItem('order#o1')).toEqual({ pk: 'order#o1' });
          expect(await h.appItem('order#o3')).toBeUndefined();
          expect(await h.appItem('order#small')).toBeUndefined();
          expect(await h.holdsDedupRow('k2')).toBe(false);
        },
      );
    });

    describe('expiry', () => {
      it('keeps a finished row for the whole dedup window, to its last millisecond', async () => {
        await store.commit(entry('k1'), []);
        at(FIRST_EXPIRED_MS - 1);

        expect((await claim(entry('k1'))).kind).toBe('duplicate');
        expect((await store.commit(entry('k1', 'hash-2'), [])).kind).toBe('conflict');
      });

      it('treats a row past its TTL as absent for claim, though the store still holds it', async () => {
        await store.commit(entry('k1', 'hash-1'), []);
        at(FIRST_EXPIRED_MS);

        expect(await h.holdsDedupRow('k1')).toBe(true);
        expect((await claim(entry('k1', 'hash-2'))).kind).toBe('claimed');
      });

      it('treats a row past its TTL as absent for commit, and applies the effect again', async () => {
        await store.commit(entry('k1'), [put('order#first')]);
        at(FIRST_EXPIRED_MS);

        expect(await h.holdsDedupRow('k1')).toBe(true);
        expect(await store.commit(entry('k1'), [put('order#again')])).toEqual({ kind: 'committed' });
        expect(await h.appItem('order#again')).toBeDefined();
      });

      it('treats an IN_PROGRESS row past its TTL as absent, even while its lease runs', async () => {
        await store.claim(entry('k1'), FIRST_EXPIRED_MS + LEASE_MS);
        at(FIRST_EXPIRED_MS);

        expect((await claim(entry('k1'))).kind).toBe('claimed');
      });

      it('counts the window from the claim, not from the completion', async () => {
        const lease = leaseOf(await claim(entry('k1')));
        clock.advance(LEASE_MS / 2);
        await store.complete(lease);
        at(FIRST_EXPIRED_MS);

        expect((await claim(entry('k1'))).kind).toBe('claimed');
      });

      it('gives a row written after an expiry a whole new window', async () => {
        await store.commit(entry('k1'), []);
        at(FIRST_EXPIRED_MS);
        await store.commit(entry('k1'), []);

        clock.advance(TTL_SECONDS * 1000);
        expect((await store.commit(entry('k1'), [])).kind).toBe('duplicate');
        clock.advance(1000);
        expect((await store.commit(entry('k1'), [])).kind).toBe('committed');
      });
    });

    describe('quarantine', () => {
      it('writes a record once: a redelivery is already quarantined, and the row is found', async () => {
        expect(await store.isQuarantined('orders-0@7')).toBe(false);

        expect(await store.quarantine(quarantineEntry('orders-0@7'))).toBe('quarantined');
        expect(await store.quarantine(quarantineEntry('orders-0@7', 'again'))).toBe('already-quarantined');
        expect(await store.isQuarantined('orders-0@7')).toBe(true);
        expect(await store.isQuarantined('orders-0@8')).toBe(false);
      });

      it('keeps quarantine rows past the dedup window: they wait for an operator', async () => {
        await store.quarantine(quarantineEntry('orders-0@7'));
        at(FIRST_EXPIRED_MS + 86_400_000);

        expect(await store.isQuarantined('orders-0@7')).toBe(true);
        expect(await store.quarantine(quarantineEntry('orders-0@7'))).toBe('already-quarantined');
      });

      it('keeps quarantine rows and dedup rows apart, even under one key text', async () => {
        await store.quarantine(quarantineEntry('k1'));

        expect((await claim(entry('k1'))).kind).toBe('claimed');
        expect(await store.isQuarantined('k1')).toBe(true);
        await store.commit(entry('k2'), []);
        expect(await store.isQuarantined('k2')).toBe(false);
        expect(await store.quarantine(quarantineEntry('k2'))).toBe('quarantined');
      });

      it('bounds coordinates to 1,024 bytes: two that share those bytes share one row', async () => {
        const prefix = 'orders-0@'.padEnd(1_024, '7');

        expect(await store.quarantine(quarantineEntry(`${prefix}1`))).toBe('quarantined');
        expect(await store.quarantine(quarantineEntry(`${prefix}2`))).toBe('already-quarantined');
        expect(await store.isQuarantined(`${prefix}3`)).toBe(true);
      });
    });
  });
}
