import type { Effect, EffectInput } from '../../lambdas/core/effect.js';

export interface TrackingEffect {
  readonly effect: Effect;
  /** A label per record, in the order records started. */
  readonly started: string[];
  /** The most records that ran at once. */
  maxRunning(): number;
}

/** An effect that takes `ms` per record and records when each record starts and how many run at once. */
export function trackingEffect(
  ms = 5,
  label: (input: EffectInput) => string = ({ record, dedupKey }) =>
    `${record.key?.toString() ?? '-'}:${dedupKey}`,
): TrackingEffect {
  const started: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const effect: Effect = async (input) => {
    started.push(label(input));
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((resolve) => setTimeout(resolve, ms));
    running -= 1;
    return { kind: 'transact', writes: [] };
  };
  return { effect, started, maxRunning: () => maxRunning };
}
