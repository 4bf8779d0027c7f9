/**
 * Keys this container has seen COMPLETED, so a redelivered duplicate is acked without a request. Kept per
 * container (the handler's module scope): another container does not share it, so the inbox table stays
 * the truth and the cache only ever saves a request that would have answered "duplicate".
 */
import type { Clock } from './clock.js';

export interface CompletedKey {
  /** A later copy with another payload is a conflict: only the store can say so, the cache must not. */
  readonly payloadHash: string;
  /** `topic-partition@offset` of the first delivery, for the duplicate's log detail. */
  readonly source: string | undefined;
  /** The inbox row's TTL, epoch seconds: the cache never answers for a row the store would treat as absent. */
  readonly expiresAtSeconds: number;
}

/** Least recently used first out, bounded; every operation O(1) (a Map keeps insertion order). */
export class CompletedKeyCache {
  readonly #maxEntries: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, CompletedKey>();

  /** `maxEntries` 0 turns the cache off. */
  constructor(maxEntries: number, clock: Clock) {
    this.#maxEntries = maxEntries;
    this.#clock = clock;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The completed row for this key, if cached and not yet expired; a hit becomes the most recent. */
  get(dedupKey: string): CompletedKey | undefined {
    const entry = this.#entries.get(dedupKey);
    if (entry === undefined) return undefined;
    this.#entries.delete(dedupKey);
    // The store treats a row as absent once expires_at < now (seconds); stop one second earlier.
    if (entry.expiresAtSeconds <= Math.floor(this.#clock.nowMs() / 1000)) return undefined;
    this.#entries.set(dedupKey, entry);
    return entry;
  }

  remember(dedupKey: string, entry: CompletedKey): void {
    if (this.#maxEntries === 0) return;
    this.#entries.delete(dedupKey);
    this.#entries.set(dedupKey, entry);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
