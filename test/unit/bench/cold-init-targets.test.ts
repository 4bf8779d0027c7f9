/**
 * The cold-init target of issue 27 judges ours against the Powertools consumer that writes the logs and
 * metrics ours writes; the idempotency-only entry is shown beside it, never judged. And valgrind's count,
 * which explains the medians, is read from its summary line.
 */
import { describe, expect, it } from 'vitest';
import type { BenchJson } from '../../../bench/bench-json.js';
import { instructionsIn } from '../../../bench/measure/init-instructions.js';
import { checkTargets } from '../../../bench/targets.js';

function benchJson(
  initMs: number,
  powertoolsInitMs: number,
  powertoolsWithTelemetryInitMs: number,
): BenchJson {
  return {
    scenarios: [],
    bundleBytes: 290_000,
    initMs,
    powertoolsBundleBytes: 280_000,
    powertoolsInitMs,
    powertoolsWithTelemetryBundleBytes: 316_000,
    powertoolsWithTelemetryInitMs,
    initMillionInstructions: null,
    peakRssMb: 150,
  } as unknown as BenchJson;
}

const coldInitAgainstPowertools = (json: BenchJson) => {
  const check = checkTargets(json).find((t) => t.target.includes('Powertools consumer writing the logs'));
  if (!check) throw new Error('no cold-init target against Powertools');
  return check;
};

describe('the cold-init target against Powertools', () => {
  it('is met when ours starts no slower than the Powertools consumer with Logger and Metrics', () => {
    const check = coldInitAgainstPowertools(benchJson(80, 79, 86));
    expect(check.met).toBe(true);
    expect(check.measured).toBe('80.0 ms against 86.0 ms (Powertools idempotency alone: 79.0 ms)');
  });

  it('is missed when ours starts slower than it, whatever the idempotency-only entry did', () => {
    expect(coldInitAgainstPowertools(benchJson(80, 90, 79.9)).met).toBe(false);
  });
});

describe("valgrind's instruction count", () => {
  it('is read from the summary line, thousands separators and all', () => {
    const stderr =
      '==12687== Events    : Ir\n==12687== Collected : 814324033\n==12687==\n==12687== I   refs:      814,324,033\n';
    expect(instructionsIn(stderr)).toBe(814_324_033);
  });

  it('is an error quoting what valgrind printed when the summary is missing', () => {
    expect(() => instructionsIn('valgrind: failed to start tool')).toThrow(
      /no instruction count:\nvalgrind: failed to start tool/,
    );
  });
});
