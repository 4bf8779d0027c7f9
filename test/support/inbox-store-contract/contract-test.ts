/**
 * What every part of the contract shares: its timeline, its fixtures, and the test's store and harness,
 * made fresh before each case (ContractTest.install) and read through getters, since the parts' cases are
 * collected before any of them runs.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Lease } from '../../../lambdas/core/effect.js';
import type {
  ClaimResult,
  CommitMember,
  CommitResult,
  InboxEntry,
  InboxStore,
  QuarantineEntry,
} from '../../../lambdas/core/inbox-store.js';
import { ManualClock } from '../clocks.js';
import type {
  Capability,
  EffectStep,
  InboxStoreContractSubject,
  InboxStoreHarness,
  ItemAttributes,
} from './harness.js';

export const TTL_SECONDS = 3_600;
export const LEASE_MS = 60_000;
/**
 * A whole second, a year ahead of the wall clock: a row the store must treat as expired is never old
 * enough for a TTL sweeper (DynamoDB Local's, if it runs one) to delete it, so expiry is decided by the
 * store's own conditions, as it must be in AWS where deletion comes days late.
 */
export const START_MS = (Math.floor(Date.now() / 1000) + 365 * 86_400) * 1000;
/** The first millisecond at which a row written at START_MS counts as expired (`expires_at < now`, in seconds). */
export const FIRST_EXPIRED_MS = START_MS + (TTL_SECONDS + 1) * 1000;

export const entry = (dedupKey: string, payloadHash = 'hash-1', source = 'orders-0@1'): InboxEntry => ({
  dedupKey,
  payloadHash,
  source,
});

export const quarantineEntry = (coordinates: string, message = 'not JSON'): QuarantineEntry => ({
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

export function leaseOf(result: ClaimResult): Lease {
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
  return result.lease;
}

export const put = (pk: string, attributes: ItemAttributes = {}): EffectStep => ({
  op: 'put',
  pk,
  attributes,
});
/** A business rule: the item must not exist yet. */
export const putIfAbsent = (pk: string, attributes: ItemAttributes = {}): EffectStep => ({
  op: 'put-if-absent',
  pk,
  attributes,
});
/** A business rule: the item must exist. */
export const requireItem = (pk: string): EffectStep => ({ op: 'require', pk });
export const remove = (pk: string): EffectStep => ({ op: 'delete', pk });
/** No rule of the effect's: the store's own unique key refuses a second item (storeConstraints). */
export const insertUnique = (pk: string, attributes: ItemAttributes = {}): EffectStep => ({
  op: 'insert-unique',
  pk,
  attributes,
});

export const committed: CommitResult = { kind: 'committed' };

/** `it`, or `it.skip` with the reason in the title, as the store's capability says. */
export function itWhen(capability: Capability) {
  return (title: string, body: () => Promise<void>): void => {
    if (capability === true) it(title, body);
    else it.skip(`${title} (skipped: ${capability.unsupported})`, body);
  };
}

/** One case's store, harness and clock, with the helpers the cases read as a timeline. */
export class ContractTest {
  #harness: InboxStoreHarness | undefined;
  #clock: ManualClock | undefined;

  constructor(readonly subject: InboxStoreContractSubject) {}

  /** A fresh harness before each case of the enclosing describe, disposed after it. */
  install(): void {
    beforeEach(async () => {
      this.#clock = new ManualClock(START_MS);
      this.#harness = await this.subject.makeHarness({ clock: this.#clock, ttlSeconds: TTL_SECONDS });
    });
    afterEach(async () => {
      const harness = this.#harness;
      this.#harness = undefined;
      await harness?.dispose?.();
    });
  }

  get h(): InboxStoreHarness {
    if (this.#harness === undefined) throw new Error('the harness is made before each case');
    return this.#harness;
  }

  get store(): InboxStore {
    return this.h.store;
  }

  get clock(): ManualClock {
    if (this.#clock === undefined) throw new Error('the clock is made before each case');
    return this.#clock;
  }

  leaseFromNow(): number {
    return this.clock.nowMs() + LEASE_MS;
  }

  claim(e: InboxEntry): Promise<ClaimResult> {
    return this.store.claim(e, this.leaseFromNow());
  }

  /** Moves the clock to an absolute time: tests read as a timeline. */
  at(ms: number): void {
    this.clock.advance(ms - this.clock.nowMs());
  }

  /** Commits the record with these steps as its store's effect. */
  commit(e: InboxEntry, steps: readonly EffectStep[] = []): Promise<CommitResult> {
    const effect = this.h.effectOf(steps);
    return this.store.commit(e, effect.writes, effect.sql);
  }

  /** The store can commit (InboxStoreCapabilities.transactions). */
  get transactions(): Capability {
    return this.subject.capabilities.transactions ?? true;
  }

  /**
   * A COMPLETED row for `e`, the way the store writes one: a commit with no effect, or on a store for side
   * effects only a claim and its completion.
   */
  async finish(e: InboxEntry): Promise<void> {
    if (this.transactions === true) {
      expect((await this.commit(e, [])).kind).toBe('committed');
      return;
    }
    const claimed = await this.store.claim(e, this.clock.nowMs() + LEASE_MS);
    if (claimed.kind !== 'claimed') throw new Error(`could not finish ${e.dedupKey}: ${claimed.kind}`);
    expect(await this.store.complete(claimed.lease)).toBe('completed');
  }

  member(e: InboxEntry, steps: readonly EffectStep[] = []): CommitMember {
    return { entry: e, ...this.h.effectOf(steps) };
  }

  /** What the store answers when step `stepIndex`'s business rule fails. */
  rejectedAt(stepIndex: number): CommitResult {
    return this.h.businessRejection(stepIndex);
  }
}
