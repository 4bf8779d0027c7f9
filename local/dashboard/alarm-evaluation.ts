/**
 * The template's alarms, evaluated over a local run as CloudWatch evaluates them: at each evaluation, the
 * last `EvaluationPeriods` periods of `Period` seconds each give one datapoint (the statistic, or the metric
 * math over the metrics' datapoints); the alarm is in ALARM when `DatapointsToAlarm` of them breach the
 * threshold, missing datapoints counting as `TreatMissingData` says.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html#alarm-evaluation
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html
 *
 * Where the periods fall is the alarm's `EvaluationWindow`
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-evaluation-window.html):
 * - `SlidingWindow`, the default and what the sample stack's alarms use: "the window advances each time
 *   the alarm is evaluated", so the periods end at the evaluation. A run lasts seconds and a period minutes,
 *   so the latest period is still filling while the run goes: it is evaluated every second over the data
 *   so far (CloudWatch evaluates about once a minute, so it would say it up to a minute later). A run that
 *   crosses a 5-minute mark is not split: some window holds all of it, as in CloudWatch.
 * - `WallClockWindow`: the periods are aligned to the clock, starting at floor(t / period) * period (UTC;
 *   another time zone is refused here), and CloudWatch "evaluates complete, calendar-aligned periods": the
 *   evaluations are at the period boundaries, up to the first one at or after the run's end (so an alarm
 *   can fire after the run), and a sum split by a boundary is two datapoints.
 */
import type { MetricLookup } from './local-metrics.js';
import { evaluateMath } from './metric-math.js';
import { aggregate, type Window } from './statistics.js';
import type { TemplateAlarm } from './template-alarms.js';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export type AlarmEvaluation =
  | {
      readonly alarm: TemplateAlarm;
      readonly kind: 'evaluated';
      /** The state at the end of the run. */
      readonly state: AlarmState;
      /** When it first went to ALARM, in ms after the run's start. */
      readonly firedAtMs: number | undefined;
    }
  | {
      readonly alarm: TemplateAlarm;
      readonly kind: 'no-local-counterpart';
      /** The metrics nothing local stands for. */
      readonly missing: readonly string[];
    };

export interface RunSpan {
  readonly startMs: number;
  readonly endMs: number;
}

const COMPARISONS: Readonly<Record<string, (value: number, threshold: number) => boolean>> = {
  GreaterThanOrEqualToThreshold: (v, t) => v >= t,
  GreaterThanThreshold: (v, t) => v > t,
  LessThanThreshold: (v, t) => v < t,
  LessThanOrEqualToThreshold: (v, t) => v <= t,
};

export function evaluateAlarms(
  alarms: readonly TemplateAlarm[],
  lookup: MetricLookup,
  run: RunSpan,
  stepMs = 1_000,
): AlarmEvaluation[] {
  return alarms.map((alarm) => evaluateAlarm(alarm, lookup, run, stepMs));
}

function evaluateAlarm(
  alarm: TemplateAlarm,
  lookup: MetricLookup,
  run: RunSpan,
  stepMs: number,
): AlarmEvaluation {
  const samples = Object.entries(alarm.metrics).map(([id, metric]) => ({
    id,
    metric,
    samples: lookup(metric),
  }));
  const missing = samples.filter((s) => s.samples === undefined).map((s) => s.metric.name);
  if (missing.length > 0) return { alarm, kind: 'no-local-counterpart', missing };
  const compare = COMPARISONS[alarm.comparison];
  if (!compare)
    throw new Error(`alarm ${alarm.name}: comparison ${alarm.comparison} is not supported locally`);
  const periodMs = alarm.periodSeconds * 1_000;
  let state: AlarmState = 'INSUFFICIENT_DATA';
  let firedAtMs: number | undefined;
  for (const { instant, newestEndMs } of evaluationInstants(alarm, run, stepMs)) {
    // One period more than evaluated, so that RATE has a datapoint before the first one evaluated.
    const periods = alarm.evaluationPeriods + 1;
    const windows: Window[] = Array.from({ length: periods }, (_, index) => {
      const endMs = newestEndMs - (periods - index - 1) * periodMs;
      return { startMs: endMs - periodMs, endMs };
    });
    const inputs = Object.fromEntries(
      samples.map(({ id, metric, samples: s }) => [id, aggregate(s ?? [], metric.stat, windows)]),
    );
    const datapoints = evaluateMath(alarm.expression, inputs, alarm.periodSeconds).slice(1);
    const next = stateOf(alarm, datapoints, compare, state);
    if (next === 'ALARM' && state !== 'ALARM') firedAtMs ??= instant - run.startMs;
    state = next;
  }
  return { alarm, kind: 'evaluated', state, firedAtMs };
}

/** When the alarm is evaluated during the run, and where (exclusive) its newest period ends then. */
export function evaluationInstants(
  alarm: Pick<TemplateAlarm, 'periodSeconds' | 'evaluationWindow'>,
  run: RunSpan,
  stepMs = 1_000,
): { instant: number; newestEndMs: number }[] {
  const instants: { instant: number; newestEndMs: number }[] = [];
  if (alarm.evaluationWindow === 'wall-clock') {
    const periodMs = alarm.periodSeconds * 1_000;
    // The boundary after the run's first sample, through the one that completes the run's last period.
    const first = (Math.floor(run.startMs / periodMs) + 1) * periodMs;
    for (let boundary = first; boundary < run.endMs + periodMs; boundary += periodMs) {
      instants.push({ instant: boundary, newestEndMs: boundary });
    }
    return instants;
  }
  for (let at = run.startMs + stepMs; at < run.endMs + stepMs; at += stepMs) {
    const instant = Math.min(at, run.endMs);
    // (start, end]: the newest period ends with the instant, its samples included.
    instants.push({ instant, newestEndMs: instant + 1 });
  }
  return instants;
}

function stateOf(
  alarm: TemplateAlarm,
  datapoints: readonly (number | undefined)[],
  compare: (value: number, threshold: number) => boolean,
  previous: AlarmState,
): AlarmState {
  const present = datapoints.filter((d): d is number => d !== undefined);
  const missingCount = datapoints.length - present.length;
  if (present.length === 0) {
    if (alarm.treatMissingData === 'notBreaching') return 'OK';
    if (alarm.treatMissingData === 'breaching') {
      return missingCount >= alarm.datapointsToAlarm ? 'ALARM' : 'OK';
    }
    return alarm.treatMissingData === 'ignore' ? previous : 'INSUFFICIENT_DATA';
  }
  const breaching =
    present.filter((d) => compare(d, alarm.threshold)).length +
    (alarm.treatMissingData === 'breaching' ? missingCount : 0);
  return breaching >= alarm.datapointsToAlarm ? 'ALARM' : 'OK';
}
