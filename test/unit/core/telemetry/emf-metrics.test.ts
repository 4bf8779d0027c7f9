import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ConsumerMetrics,
  EmfMetrics,
  metricsDisabledBy,
} from '../../../../lambdas/core/telemetry/emf-metrics.js';
import { parseEmfLine } from '../../../../local/dashboard/emf.js';
import { capturedWrites } from '../../../support/captured-writes.js';

const saved = { ...process.env };

beforeEach(() => {
  // vitest.config.ts turns metrics off; Powertools reads it, and POWERTOOLS_DEV, at construction.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  delete process.env.POWERTOOLS_DEV;
});

afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

/** The lines `use` makes a writer print; `_aws.Timestamp` (the time of writing) is the one field set aside. */
function printedBy(metrics: ConsumerMetrics, use: (metrics: ConsumerMetrics) => void): string[] {
  const output = capturedWrites();
  use(metrics);
  vi.restoreAllMocks();
  return output
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/"Timestamp":\d+/, '"Timestamp":0'));
}

const ours = () => new EmfMetrics({ namespace: 'MskInbox', serviceName: 'orders', disabled: false });
const powertools = () => new Metrics({ namespace: 'MskInbox', serviceName: 'orders' });

/** A consumer's invocation: counts, a duration, and a metric added twice (an array of values). */
function invocation(metrics: ConsumerMetrics): void {
  metrics.addMetric('Processed', 'Count', 3);
  metrics.addMetric('Quarantined', 'Count', 0);
  metrics.addMetric('BatchDuration', 'Milliseconds', 12.5);
  metrics.addMetric('FailedBatches', 'Count', 1);
  metrics.addMetric('FailedBatches', 'Count', 1);
  metrics.publishStoredMetrics();
}

function manyMetrics(metrics: ConsumerMetrics): void {
  for (let i = 0; i < 150; i += 1) metrics.addMetric(`M${i}`, 'Count', i);
  metrics.publishStoredMetrics();
}

function manyValues(metrics: ConsumerMetrics): void {
  for (let i = 0; i < 101; i += 1) metrics.addMetric('Latency', 'Milliseconds', i);
  metrics.publishStoredMetrics();
}

describe('EmfMetrics', () => {
  it('writes, byte for byte, the line Powertools Metrics writes for the same metrics', () => {
    const line = printedBy(ours(), invocation);

    expect(line).toEqual(printedBy(powertools(), invocation));
    const parsed = parseEmfLine(line[0] ?? '');
    expect(parsed.kind).toBe('metrics');
    if (parsed.kind !== 'metrics') return;
    expect(parsed.metrics.find((m) => m.name === 'FailedBatches')).toMatchObject({
      namespace: 'MskInbox',
      dimensions: { service: 'orders' },
      unit: 'Count',
      values: [1, 1],
    });
  });

  it('puts at most 100 metrics on a line, as the EMF spec allows, and splits as Powertools does', () => {
    const lines = printedBy(ours(), manyMetrics);

    expect(lines).toEqual(printedBy(powertools(), manyMetrics));
    const counts = lines.map((line) => {
      const parsed = parseEmfLine(line);
      return parsed.kind === 'metrics' ? parsed.metrics.length : parsed.kind;
    });
    expect(counts).toEqual([100, 50]);
  });

  it("writes a metric as soon as it holds 100 values, the spec's limit, as Powertools does", () => {
    const lines = printedBy(ours(), manyValues);

    expect(lines).toEqual(printedBy(powertools(), manyValues));
    const values = lines.map((line) => {
      const parsed = parseEmfLine(line);
      return parsed.kind === 'metrics' ? parsed.metrics[0]?.values.length : parsed.kind;
    });
    expect(values).toEqual([100, 1]);
  });

  it('writes nothing when disabled or when nothing was added, and forgets what a disabled run stored', () => {
    const disabled = new EmfMetrics({ namespace: 'MskInbox', serviceName: 'orders', disabled: true });
    const output = capturedWrites();

    disabled.addMetric('Processed', 'Count', 1);
    disabled.publishStoredMetrics();
    ours().publishStoredMetrics();

    expect(output.stdout()).toBe('');
  });
});

describe('metricsDisabledBy', () => {
  it('follows POWERTOOLS_METRICS_DISABLED when set, else POWERTOOLS_DEV, as Powertools does', () => {
    expect(metricsDisabledBy({})).toBe(false);
    expect(metricsDisabledBy({ POWERTOOLS_METRICS_DISABLED: 'true' })).toBe(true);
    expect(metricsDisabledBy({ POWERTOOLS_METRICS_DISABLED: ' 1 ' })).toBe(true);
    expect(metricsDisabledBy({ POWERTOOLS_DEV: 'yes' })).toBe(true);
    expect(metricsDisabledBy({ POWERTOOLS_METRICS_DISABLED: 'false', POWERTOOLS_DEV: 'true' })).toBe(false);
  });
});
