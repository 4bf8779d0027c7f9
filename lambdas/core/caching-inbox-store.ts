/**
 * An inbox store that answers "duplicate" from the container's cache of completed keys, and asks the
 * wrapped store for everything else. Only a key completed with the same payload hash is served: another
 * payload still goes to the store, which reports the conflict; so does an expired key.
 */
import type { Clock } from './clock.js';
import type { CompletedKey, CompletedKeyCache } from './completed-key-cache.js';
import type { EffectWrite, Lease, SqlEffect } from './effect.js';
import { INBOX_STATUS } from './inbox-rows.js';
import type {
  ClaimResult,
  CommitGroupOptions,
  CommitMember,
  CommitResult,
  ExistingRow,
  IdempotentResult,
  InboxEntry,
  InboxStore,
  QuarantineEntry,
  RowConflict,
} from './inbox-store.js';

export interface CachingInboxStoreOptions {
  readonly store: InboxStore;
  readonly cache: CompletedKeyCache;
  /** The store's dedup window: a row written now expires no earlier than now + this. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
}

export class CachingInboxStore implements InboxStore {
  readonly #store: InboxStore;
  readonly #cache: CompletedKeyCache;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;
  /** Claimed rows by lease token, remembered once their completion is confirmed. */
  readonly #claimed = new Map<string, CompletedKey>();

  constructor(options: CachingInboxStoreOptions) {
    this.#store = options.store;
    this.#cache = options.cache;
    this.#ttlSeconds = options.ttlSeconds;
    this.#clock = options.clock;
  }

  knownDuplicate(entry: InboxEntry): RowConflict | undefined {
    return this.#cachedDuplicate(entry);
  }

  async commit(entry: InboxEntry, writes: readonly EffectWrite[], sql?: SqlEffect): Promise<CommitResult> {
    const cached = this.#cachedDuplicate(entry);
    if (cached) return cached;
    const expiresAtSeconds = this.#earliestExpiry();
    const result = await this.#store.commit(entry, writes, sql);
    if (result.kind === 'committed')
      this.#cache.remember(entry.dedupKey, completedKey(entry, expiresAtSeconds));
    if (result.kind === 'duplicate') this.#rememberExisting(entry.dedupKey, result.existing);
    return result;
  }

  async commitGroup(members: readonly CommitMember[], options?: CommitGroupOptions): Promise<CommitResult[]> {
    const results: (CommitResult | undefined)[] = members.map((member) =>
      this.#cachedDuplicate(member.entry),
    );
    const asked = members.filter((_, index) => results[index] === undefined);
    if (asked.length === 0) return results as CommitResult[];
    const expiresAtSeconds = this.#earliestExpiry();
    const answers = await this.#store.commitGroup(asked, options);
    let next = 0;
    return results.map((cached, index) => {
      if (cached) return cached;
      const member = members[index] as CommitMember;
      const result = answers[next++] as CommitResult;
      if (result.kind === 'committed')
        this.#cache.remember(member.entry.dedupKey, completedKey(member.entry, expiresAtSeconds));
      if (result.kind === 'duplicate') this.#rememberExisting(member.entry.dedupKey, result.existing);
      return result;
    });
  }

  async claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult> {
    const cached = this.#cachedDuplicate(entry);
    if (cached) return cached;
    const expiresAtSeconds = this.#earliestExpiry();
    const result = await this.#store.claim(entry, leaseUntilMs);
    if (result.kind === 'claimed')
      this.#claimed.set(result.lease.token, completedKey(entry, expiresAtSeconds));
    if (result.kind === 'duplicate') this.#rememberExisting(entry.dedupKey, result.existing);
    return result;
  }

  async complete(lease: Lease): Promise<'completed' | 'lease-lost'> {
    const claimed = this.#claimed.get(lease.token);
    this.#claimed.delete(lease.token);
    const result = await this.#store.complete(lease);
    // A lost lease means another attempt owns the row now: nothing is known about its end.
    if (result === 'completed' && claimed) this.#cache.remember(lease.dedupKey, claimed);
    return result;
  }

  release(lease: Lease): Promise<'released' | 'lease-lost'> {
    this.#claimed.delete(lease.token);
    return this.#store.release(lease);
  }

  /** Not cached: no inbox row remembers the key, so a redelivery asks again and its guard answers. */
  applyIdempotent(writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    return this.#store.applyIdempotent(writes);
  }

  quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    return this.#store.quarantine(entry);
  }

  isQuarantined(coordinates: string): Promise<boolean> {
    return this.#store.isQuarantined(coordinates);
  }

  deleteExpiredRows(maxRows: number): Promise<{ readonly deleted: number; readonly more: boolean }> {
    // Nothing cached can outlive its row: the cache holds each key no longer than the row's expiry.
    return this.#store.deleteExpiredRows?.(maxRows) ?? Promise.resolve({ deleted: 0, more: false });
  }

  #cachedDuplicate(entry: InboxEntry): RowConflict | undefined {
    const cached = this.#cache.get(entry.dedupKey);
    if (cached?.payloadHash !== entry.payloadHash) return undefined;
    return {
      kind: 'duplicate',
      existing: {
        status: INBOX_STATUS.completed,
        payloadHash: cached.payloadHash,
        leaseUntilMs: undefined,
        source: cached.source,
        expiresAtSeconds: cached.expiresAtSeconds,
      },
    };
  }

  #rememberExisting(dedupKey: string, existing: ExistingRow): void {
    // Without the row's own TTL the entry could outlive the row: not cached.
    if (existing.payloadHash === undefined || existing.expiresAtSeconds === undefined) return;
    this.#cache.remember(dedupKey, {
      payloadHash: existing.payloadHash,
      source: existing.source,
      expiresAtSeconds: existing.expiresAtSeconds,
    });
  }

  /** Read before the write: the row's expires_at (the store's clock, later) is at least this. */
  #earliestExpiry(): number {
    return Math.floor(this.#clock.nowMs() / 1000) + this.#ttlSeconds;
  }
}

function completedKey(entry: InboxEntry, expiresAtSeconds: number): CompletedKey {
  return { payloadHash: entry.payloadHash, source: entry.source, expiresAtSeconds };
}
