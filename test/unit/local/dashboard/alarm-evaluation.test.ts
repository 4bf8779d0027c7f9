import { describe, expect, it } from 'vitest';
import { evaluateAlarms } from '../../../../local/dashboard/alarm-evaluation.js';
import type { MetricLookup } from '../../../../local/dashboard/local-metrics.js';
import { evaluateMath } from '../../../../local/dashboard/metric-math.js';
import type { Sample } from '../../../../local/dashboard/statistics.js';
import type { MetricQuery, TemplateAlarm } from '../../../../local/dashboard/template-alarms.js';

const START = 1_000_000;
const RUN = { startMs: START, endMs: START + 10_000 };

const metric = (name: string, stat = 'Sum'): MetricQuery => ({
  namespace: 'Test',
  name,
  dimensions: {},
  stat,
});

function alarm(overrides: Partial<TemplateAlarm>): TemplateAlarm {
  return {
    logicalId: 'AlarmABCD1234',
    name: 'Alarm',
    periodSeconds: 300,
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: 'notBreaching',
    expression: 'm',
    metrics: { m: metric('Quarantined') },
    ...overrides,
  };
}

/** Samples by metric name, at ms after the run's start; names not listed have no local counterpart. */
function lookup(samples: Record<string, [atMs: number, value: number][]>): MetricLookup {
  return ({ name }) => samples[name]?.map(([atMs, value]): Sample => ({ timeMs: START + atMs, value }));
}

describe('evaluateAlarms', () => {
  it('fires a Sum alarm in the second its datapoint so far reaches the threshold, inside a 5-minute period', () => {
    const [evaluation] = evaluateAlarms(
      [alarm({ threshold: 3 })],
      lookup({
        Quarantined: [
          [500, 0],
          [2_300, 2],
          [4_100, 1],
        ],
      }),
      RUN,
    );
    expect(evaluation).toMatchObject({ kind: 'evaluated', state: 'ALARM', firedAtMs: 5_000 });
  });

  it('stays OK below the threshold, and with no data when missing data is not breaching', () => {
    const evaluations = evaluateAlarms(
      [
        alarm({ threshold: 5 }),
        alarm({ expression: 'FILL(a, 0) + FILL(b, 0)', metrics: { a: metric('A'), b: metric('B') } }),
      ],
      lookup({ Quarantined: [[100, 4]], A: [], B: [] }),
      RUN,
    );
    expect(evaluations.map((e) => (e.kind === 'evaluated' ? [e.state, e.firedAtMs] : e.kind))).toEqual([
      ['OK', undefined],
      ['OK', undefined],
    ]);
  });

  it('needs datapoints to alarm of the evaluation periods: 2 of 3 one-second periods', () => {
    const twoOfThree = alarm({ periodSeconds: 1, evaluationPeriods: 3, datapointsToAlarm: 2 });
    const breachingOnce = evaluateAlarms([twoOfThree], lookup({ Quarantined: [[1_500, 1]] }), RUN);
    const breachingTwice = evaluateAlarms(
      [twoOfThree],
      lookup({
        Quarantined: [
          [1_500, 1],
          [3_500, 1],
        ],
      }),
      RUN,
    );
    expect(breachingOnce[0]).toMatchObject({ state: 'OK', firedAtMs: undefined });
    expect(breachingTwice[0]).toMatchObject({ firedAtMs: 4_000 });
  });

  it('reads metric math with RATE: a lag above its threshold and still growing over consecutive periods', () => {
    const growing = alarm({
      periodSeconds: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      expression: 'IF(lag > 100 AND RATE(lag) > 0, 1, 0)',
      metrics: { lag: metric('OffsetLag', 'Maximum') },
    });
    const lagAt = (values: number[]) =>
      lookup({ OffsetLag: values.map((value, second): [number, number] => [second * 1_000 + 500, value]) });
    expect(evaluateAlarms([growing], lagAt([150, 200, 250, 300, 350]), RUN)[0]).toMatchObject({
      firedAtMs: 4_000,
    });
    expect(evaluateAlarms([growing], lagAt([300, 250, 200, 150, 120]), RUN)[0]).toMatchObject({
      state: 'OK',
    });
  });

  it('treats missing data as breaching when the alarm says so', () => {
    const [evaluation] = evaluateAlarms(
      [alarm({ treatMissingData: 'breaching' })],
      lookup({ Quarantined: [] }),
      RUN,
    );
    expect(evaluation).toMatchObject({ state: 'ALARM', firedAtMs: 1_000 });
  });

  it('does not evaluate an alarm on a metric with no local counterpart', () => {
    const [evaluation] = evaluateAlarms(
      [alarm({ metrics: { reads: metric('ReadThrottleEvents') }, expression: 'reads' })],
      lookup({}),
      RUN,
    );
    expect(evaluation).toMatchObject({ kind: 'no-local-counterpart', missing: ['ReadThrottleEvents'] });
  });
});

describe('evaluateMath', () => {
  it('keeps a missing datapoint missing through arithmetic, and FILL replaces it', () => {
    expect(evaluateMath('a + b * 2', { a: [1, undefined, 3], b: [1, 1, undefined] }, 60)).toEqual([
      3,
      undefined,
      undefined,
    ]);
    expect(evaluateMath('FILL(a, 0) - 1', { a: [5, undefined] }, 60)).toEqual([4, -1]);
  });

  it('gives RATE per second between consecutive datapoints', () => {
    expect(evaluateMath('RATE(a)', { a: [0, 600, 300] }, 300)).toEqual([undefined, 2, -1]);
  });
});
