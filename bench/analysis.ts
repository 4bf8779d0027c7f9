import type { BenchResults } from './results.js';

/** What the figures mean, written against the measured numbers. */
export function analysisOf(_results: BenchResults): string {
  return 'Analysis to follow.';
}
