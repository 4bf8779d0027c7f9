import { describe, expect, it } from 'vitest';
import { evaluateAlarms } from '../../../../local/dashboard/alarm-evaluation.js';
import type { MetricLookup } from '../../../../local/dashboard/local-metrics.js';
import { evaluateMath } from '../../../../local/dashboard/metric-math.js';
import type { Sample } from '../../../../local/dashboard/statistics.js';
import {
  type MetricQuery,
  type TemplateAlarm,
  templateAlarms,
} from '../../../../local/dashboard/template-alarms.js';

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
    evaluationWindow: 'sliding',
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

describe('evaluateAlarms: where the periods fall', () => {
  // 1_200_000 ms is a 5-minute boundary of the epoch (4 × 300 s); this run crosses it 5 s in.
  const CROSSING = { startMs: 1_195_000, endMs: 1_205_000 };
  const at = (msIntoRun: number, value: number): [number, number] => [
    CROSSING.startMs + msIntoRun - START,
    value,
  ];
  const splitSum = lookup({ Quarantined: [at(2_000, 2), at(7_000, 2)] });

  it('a wall clock window splits a sum crossing a 5-minute boundary into two datapoints: 2 and 2 stay below 3', () => {
    const [evaluation] = evaluateAlarms(
      [alarm({ threshold: 3, evaluationWindow: 'wall-clock' })],
      splitSum,
      CROSSING,
    );
    expect(evaluation).toMatchObject({ kind: 'evaluated', state: 'OK', firedAtMs: undefined });
  });

  it('a sliding window (the default) holds the whole run: 4 reaches 3 in the second the second sample comes', () => {
    const [evaluation] = evaluateAlarms([alarm({ threshold: 3 })], splitSum, CROSSING);
    expect(evaluation).toMatchObject({ kind: 'evaluated', state: 'ALARM', firedAtMs: 7_000 });
  });

  it('a wall clock window judges a complete period at its end: it fires at the boundary, after the run', () => {
    const before = lookup({ Quarantined: [at(1_000, 2), at(3_000, 2)] });
    const run = { startMs: CROSSING.startMs, endMs: CROSSING.startMs + 4_000 };
    const [evaluation] = evaluateAlarms(
      [alarm({ threshold: 3, evaluationWindow: 'wall-clock' })],
      before,
      run,
    );
    expect(evaluation).toMatchObject({ state: 'ALARM', firedAtMs: 5_000 });
  });
});

describe('evaluateAlarms: treat missing data, and the comparisons', () => {
  const stateWith = (overrides: Partial<TemplateAlarm>, samples: [number, number][]) => {
    const [evaluation] = evaluateAlarms([alarm(overrides)], lookup({ Quarantined: samples }), RUN);
    return evaluation?.kind === 'evaluated' ? [evaluation.state, evaluation.firedAtMs] : evaluation?.kind;
  };

  it('with no datapoint: missing is INSUFFICIENT_DATA, notBreaching OK, breaching ALARM, ignore keeps the state', () => {
    expect(stateWith({ treatMissingData: 'missing' }, [])).toEqual(['INSUFFICIENT_DATA', undefined]);
    expect(stateWith({ treatMissingData: 'notBreaching' }, [])).toEqual(['OK', undefined]);
    expect(stateWith({ treatMissingData: 'breaching' }, [])).toEqual(['ALARM', 1_000]);
    expect(stateWith({ treatMissingData: 'ignore' }, [])).toEqual(['INSUFFICIENT_DATA', undefined]);
    // ignore: 1-second periods, a breach at 1.5 s, then nothing: the alarm stays in ALARM.
    expect(stateWith({ treatMissingData: 'ignore', periodSeconds: 1 }, [[1_500, 1]])).toEqual([
      'ALARM',
      2_000,
    ]);
    expect(stateWith({ treatMissingData: 'notBreaching', periodSeconds: 1 }, [[1_500, 1]])).toEqual([
      'OK',
      2_000,
    ]);
  });

  it('with some datapoints missing, breaching counts them toward datapoints to alarm and the others do not', () => {
    // 2 of 3 one-second periods; one breaching datapoint, then two missing ones.
    const twoOfThree = { periodSeconds: 1, evaluationPeriods: 3, datapointsToAlarm: 2 };
    const once: [number, number][] = [[1_500, 1]];
    expect(stateWith({ ...twoOfThree, treatMissingData: 'breaching' }, once)).toEqual(['ALARM', 1_000]);
    expect(stateWith({ ...twoOfThree, treatMissingData: 'notBreaching' }, once)).toEqual(['OK', undefined]);
    expect(stateWith({ ...twoOfThree, treatMissingData: 'missing' }, once)).toEqual([
      'INSUFFICIENT_DATA',
      undefined,
    ]);
  });

  it('compares with >, <, <= and >= as the comparison operator says, and refuses one it does not know', () => {
    const sum2: [number, number][] = [[500, 2]];
    const fired = (comparison: string, threshold: number) => stateWith({ comparison, threshold }, sum2)?.[0];
    expect(fired('GreaterThanThreshold', 2)).toBe('OK');
    expect(fired('GreaterThanThreshold', 1)).toBe('ALARM');
    expect(fired('GreaterThanOrEqualToThreshold', 2)).toBe('ALARM');
    expect(fired('LessThanThreshold', 2)).toBe('OK');
    expect(fired('LessThanThreshold', 3)).toBe('ALARM');
    expect(fired('LessThanOrEqualToThreshold', 2)).toBe('ALARM');
    expect(fired('LessThanOrEqualToThreshold', 1)).toBe('OK');
    expect(() => fired('LessThanLowerOrGreaterThanUpperThreshold', 1)).toThrow(/not supported locally/);
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

describe('templateAlarms: the evaluation window', () => {
  const resource = (extra: Record<string, unknown>) => ({
    A: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Namespace: 'MskInbox',
        MetricName: 'Quarantined',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        ...extra,
      },
    },
  });

  it('is sliding unless the template asks for a wall clock window, in UTC only', () => {
    expect(templateAlarms(resource({}))[0]?.evaluationWindow).toBe('sliding');
    expect(templateAlarms(resource({ EvaluationWindow: { WallClockWindow: {} } }))[0]?.evaluationWindow).toBe(
      'wall-clock',
    );
    expect(() =>
      templateAlarms(resource({ EvaluationWindow: { WallClockWindow: { Timezone: 'Europe/Paris' } } })),
    ).toThrow(/UTC only/);
  });
});
