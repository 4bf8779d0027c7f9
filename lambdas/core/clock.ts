/** Injected so tests can skew or move time without fake timers. */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };
