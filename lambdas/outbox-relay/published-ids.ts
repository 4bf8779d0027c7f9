/**
 * The event ids this container published and removed from the outbox, the most recent few thousand, with
 * when. A stream record's image lists the events its row held at that change, so when a consumer appended
 * to a row many times in a row, later records still list events an earlier invocation already published:
 * without this memory each such event went out again (a harmless duplicate for the next inbox, but a
 * produce and a dedup write each). Lambda keeps sending a shard's batches to a warm container, so one
 * container's memory removes most of them. Forgotten after `ttlMs`: an id emitted again much later (its
 * source re-applied after the dedup window) is published again.
 */
export class PublishedIds {
  readonly #capacity: number;
  readonly #ttlMs: number;
  /** Insertion order is age order: the oldest go first. */
  readonly #at = new Map<string, number>();

  constructor(options: { readonly capacity?: number; readonly ttlMs?: number } = {}) {
    this.#capacity = options.capacity ?? 50_000;
    this.#ttlMs = options.ttlMs ?? 15 * 60_000;
  }

  has(id: string, nowMs: number): boolean {
    const at = this.#at.get(id);
    return at !== undefined && nowMs - at <= this.#ttlMs;
  }

  add(id: string, nowMs: number): void {
    this.#at.delete(id);
    this.#at.set(id, nowMs);
    while (this.#at.size > this.#capacity) {
      const oldest = this.#at.keys().next().value as string;
      this.#at.delete(oldest);
    }
  }

  get size(): number {
    return this.#at.size;
  }
}
