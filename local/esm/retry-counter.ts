/**
 * MaximumRetryAttempts, counted per partition (Kafka) or shard (DynamoDB Streams): the failed attempts at
 * delivering from one position. A failure from another position starts a fresh count, and so does progress
 * past the position (`settle`). Both emulated mappings count with it.
 */
export class RetryCounter<Position> {
  readonly #maxRetryAttempts: number;
  readonly #state = new Map<string, { readonly position: Position; failedAttempts: number }>();

  /** `maxRetryAttempts`: retries after the first attempt; -1 retries for ever. */
  constructor(maxRetryAttempts: number) {
    this.#maxRetryAttempts = maxRetryAttempts;
  }

  /** Records one more failed attempt at `key` from `position`; true when the retries are exhausted. */
  fail(key: string, position: Position): boolean {
    const previous = this.#state.get(key);
    const state = previous?.position === position ? previous : { position, failedAttempts: 0 };
    state.failedAttempts++;
    this.#state.set(key, state);
    return this.#maxRetryAttempts !== -1 && state.failedAttempts > this.#maxRetryAttempts;
  }

  /** Failed attempts at `key`'s current position (Lambda's approximateInvokeCount when giving up). */
  attempts(key: string): number {
    return this.#state.get(key)?.failedAttempts ?? 0;
  }

  /** Forgets `key`'s count once its checkpoint moved past the position being retried. */
  settle(key: string, passed: (position: Position) => boolean): void {
    const state = this.#state.get(key);
    if (state && passed(state.position)) this.#state.delete(key);
  }
}
