import type { Clock } from '../../lambdas/core/clock.js';
import { createLambdaContext, type LambdaContext } from '../../local/esm/lambda-function.js';

/** A clock tests move by hand: no fake timers. */
export class ManualClock implements Clock {
  #nowMs: number;
  constructor(startMs = Date.UTC(2026, 10, 29, 12, 0, 0)) {
    this.#nowMs = startMs;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  advance(ms: number): void {
    this.#nowMs += ms;
  }
}

/** A Lambda context whose deadline is `remainingMs` after the given clock's current time. */
export function lambdaContext(clock: Clock, remainingMs = 60_000): LambdaContext {
  const deadline = clock.nowMs() + remainingMs;
  return createLambdaContext(
    { functionName: 'order-consumer' },
    { requestId: 'test-request', remainingMs: () => deadline - clock.nowMs() },
  );
}
