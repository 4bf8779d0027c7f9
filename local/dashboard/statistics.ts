/**
 * CloudWatch statistics over the raw values of one period.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Statistics-definitions.html
 */

/** A raw value at its time, as a metric's datapoints are before CloudWatch aggregates them. */
export interface Sample {
  readonly timeMs: number;
  readonly value: number;
}

/** `[startMs, endMs)`. */
export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/** The statistic of the values, or undefined when there are none (a missing datapoint). */
export function statistic(values: readonly number[], stat: string): number | undefined {
  if (values.length === 0) return undefined;
  switch (stat) {
    case 'Sum':
      return values.reduce((sum, v) => sum + v, 0);
    case 'Average':
      return values.reduce((sum, v) => sum + v, 0) / values.length;
    case 'Minimum':
      return Math.min(...values);
    case 'Maximum':
      return Math.max(...values);
    case 'SampleCount':
      return values.length;
  }
  const percentile = /^p(\d+(?:\.\d+)?)$/.exec(stat);
  if (!percentile) throw new Error(`statistic ${stat} is not supported locally`);
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Number(percentile[1]) / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** One datapoint per window: the statistic of the samples inside it. */
export function aggregate(
  samples: readonly Sample[],
  stat: string,
  windows: readonly Window[],
): (number | undefined)[] {
  return windows.map(({ startMs, endMs }) =>
    statistic(
      samples.filter((s) => s.timeMs >= startMs && s.timeMs < endMs).map((s) => s.value),
      stat,
    ),
  );
}
