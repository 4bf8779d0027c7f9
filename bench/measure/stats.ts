/** Summary of repeated measurements: the median is what the report compares, min and max show the spread. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly samples: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('no samples to summarise');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return {
    median,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    samples: sorted.length,
  };
}
