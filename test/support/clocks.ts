import type { Clock } from '../../lambdas/core/clock.js';
import type { InvocationClock } from '../../lambdas/core/kafka-event.js';

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
export function lambdaContext(clock: Clock, remainingMs = 60_000): InvocationClock & Record<string, unknown> {
  const deadline = clock.nowMs() + remainingMs;
  return {
    functionName: 'order-consumer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:order-consumer',
    memoryLimitInMB: '1024',
    awsRequestId: 'test-request',
    logGroupName: '/aws/lambda/order-consumer',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => deadline - clock.nowMs(),
  };
}
