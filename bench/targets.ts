/**
 * The targets the issues set, checked against docs/benchmarks.json's rows (the very figures the bench writes),
 * so the verdicts printed at the end of a run and the ones on the page are the same.
 */
import type { BenchJson, BenchRow } from './bench-json.js';
import { BUNDLE_LIMIT_BYTES, INIT_LIMIT_MS } from './results.js';

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** Undefined when the run did not measure it (an RTT left out of `--rtt`). */
  readonly met: boolean | undefined;
}

/** Where issue 14's throughput targets are read. */
export const TARGET_RTT_MS = 10;

export function checkTargets(json: BenchJson): TargetCheck[] {
  const row = (scenario: string, contender: string, rttMs: number): BenchRow | undefined =>
    json.scenarios.find((r) => r.scenario === scenario && r.contender === contender && r.rttMs === rttMs);
  const atMost = (target: string, found: BenchRow | undefined, limit: number): TargetCheck =>
    found === undefined
      ? { target, measured: 'not measured', met: undefined }
      : {
          target,
          measured: `${found.requestsPerRecord.toFixed(3)} requests/record`,
          met: found.requestsPerRecord <= limit,
        };
  const ratio = (
    target: string,
    scenario: string,
    contender: string,
    baseline: string,
    atLeast: number,
  ): TargetCheck => {
    const a = row(scenario, contender, TARGET_RTT_MS);
    const b = row(scenario, baseline, TARGET_RTT_MS);
    if (a === undefined || b === undefined) return { target, measured: 'not measured', met: undefined };
    const measured = a.recordsPerSecond / b.recordsPerSecond;
    return {
      target,
      measured: `${measured.toFixed(2)}x (${a.recordsPerSecond.toFixed(0)} against ${b.recordsPerSecond.toFixed(0)} records/s)`,
      met: measured >= atLeast,
    };
  };
  const at = `rttMs ${TARGET_RTT_MS}`;
  return [
    atMost('rttMs 0, new-4p: inbox-tx at most 1.0 request per new record', row('new-4p', 'inbox-tx', 0), 1.0),
    atMost(
      'rttMs 0, redelivery-4p: inbox-tx at most 0.05 requests per record',
      row('redelivery-4p', 'inbox-tx', 0),
      0.05,
    ),
    ratio(`${at}, new-4p: inbox-tx at least 3x powertools`, 'new-4p', 'inbox-tx', 'powertools', 3),
    ratio(
      `${at}, hot-1p: inbox-tx at least 8x inbox-tx-ungrouped`,
      'hot-1p',
      'inbox-tx',
      'inbox-tx-ungrouped',
      8,
    ),
    atMost(
      `${at}, hot-1p: inbox-tx at most 0.05 requests per new record`,
      row('hot-1p', 'inbox-tx', TARGET_RTT_MS),
      0.05,
    ),
    ratio(
      `${at}, keys-1p: inbox-tx-per-key at least 6x inbox-tx-ungrouped`,
      'keys-1p',
      'inbox-tx-per-key',
      'inbox-tx-ungrouped',
      6,
    ),
    {
      target: 'bundle: at most 300 KB minified (as deployed by lib/bundling.ts, without tracing)',
      measured: `${(json.bundleBytes / 1024).toFixed(1)} KB (${json.bundleBytes} bytes)`,
      met: json.bundleBytes <= BUNDLE_LIMIT_BYTES,
    },
    {
      target: `cold init: at most ${INIT_LIMIT_MS} ms median (import of the bundle)`,
      measured: `${json.initMs.toFixed(1)} ms`,
      met: json.initMs <= INIT_LIMIT_MS,
    },
    {
      // Like for like: ours writes Powertools-shaped logs and EMF metrics itself, so the peer builds Powertools
      // Logger and Metrics too. The idempotency-only entry is shown beside it, not judged.
      target:
        'cold init: at most the median of a Powertools consumer writing the logs and metrics ours writes (idempotency, Logger, Metrics), in the same run (issue 27)',
      measured: `${json.initMs.toFixed(1)} ms against ${json.powertoolsWithTelemetryInitMs.toFixed(1)} ms (Powertools idempotency alone: ${json.powertoolsInitMs.toFixed(1)} ms)`,
      met: json.initMs <= json.powertoolsWithTelemetryInitMs,
    },
  ];
}

export function verdict(check: TargetCheck): string {
  if (check.met === undefined) return 'not measured';
  return check.met ? 'met' : 'missed';
}

/** The table printed at the end of a run. */
export function formatTargets(checks: readonly TargetCheck[]): string {
  const width = Math.max(...checks.map((c) => c.target.length));
  return checks
    .map(
      (c) => `${verdict(c).padEnd(12)} ${c.target.padEnd(width)}  ${c.met === undefined ? '' : c.measured}`,
    )
    .join('\n');
}
