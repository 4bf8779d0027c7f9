/** A signal that wakes every waiter at once: a wait settles on the next `wake()` or after its own timeout. */
export class Wakeup {
  readonly #waiters = new Set<() => void>();

  /** A wait that settles on the next `wake()` or after `ms`; `cancel()` settles it at once. */
  next(ms: number): { readonly promise: Promise<void>; cancel(): void } {
    let settle = () => {};
    const promise = new Promise<void>((resolve) => {
      const timer = setTimeout(() => settle(), ms);
      settle = () => {
        clearTimeout(timer);
        this.#waiters.delete(settle);
        resolve();
      };
      this.#waiters.add(settle);
    });
    return { promise, cancel: () => settle() };
  }

  wake(): void {
    for (const settle of [...this.#waiters]) settle();
  }
}
