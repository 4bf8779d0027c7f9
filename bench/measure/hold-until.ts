/**
 * The wait a modelled round trip ends with (bench/postgres/postgres-network-model.ts,
 * bench/redis/redis-network-model.ts): a timer, so answers in flight overlap as on a network.
 */

/** Resolves once performance.now() has reached the deadline; a timer that fires a fraction early waits again. */
export async function holdUntil(deadlineMs: number): Promise<void> {
  for (
    let remaining = deadlineMs - performance.now();
    remaining > 0;
    remaining = deadlineMs - performance.now()
  ) {
    await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}
