/**
 * The wait a modelled round trip ends with (bench/network-model.ts, bench/postgres/postgres-network-model.ts,
 * bench/redis/redis-network-model.ts), so answers in flight overlap as on a network.
 *
 * A timer alone is not precise enough: Node's timers count whole milliseconds of the event loop's clock, so
 * one fires up to a millisecond early or late by performance.now(), and any delay under 1 ms becomes 1 ms.
 * Measured here, a 2 ms setTimeout ended a median 0.8 ms early, and re-arming it for what was left a median
 * 0.3 ms late; a 0.25 ms round trip (a cache in the same zone) cannot be held by a timer at all. So a timer
 * waits out all but the last millisecond, and the event loop's check phase (setImmediate, which lets I/O
 * through on every turn) the rest: within a few microseconds, for a millisecond of one core's time per hold.
 */

/** The last stretch of a hold, in ms, waited for turn by turn instead of by a timer. */
const TIMER_SLACK_MS = 1;

/** Resolves once performance.now() has reached the deadline, and not before. */
export async function holdUntil(deadlineMs: number): Promise<void> {
  const byTimer = deadlineMs - performance.now() - TIMER_SLACK_MS;
  if (byTimer >= 1) await new Promise((resolve) => setTimeout(resolve, byTimer));
  while (performance.now() < deadlineMs) await new Promise((resolve) => setImmediate(resolve));
}
