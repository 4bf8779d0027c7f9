/**
 * What each widget of the dashboard shows for a local run: its series in per-second buckets (the widget's
 * statistic over each second), or that nothing local stands for its metrics. Counts (Sum) of a metric that
 * was published are 0 in a second nothing was counted; other statistics have no datapoint there.
 */
import type { AlarmEvaluation, RunSpan } from './alarm-evaluation.js';
import type { DashboardWidget, WidgetPlacement, WidgetSeries } from './dashboard-body.js';
import type { MetricLookup } from './local-metrics.js';
import { evaluateMath, mathInputs } from './metric-math.js';
import { aggregate, type Window } from './statistics.js';

export interface SeriesData {
  readonly label: string;
  readonly axis: 'left' | 'right';
  /** One value per second of the run; null where there is no datapoint. */
  readonly values: readonly (number | null)[];
  /**
   * Seconds with a datapoint of the run's own: a 0 filled into a second nothing was counted in is not one
   * (the browser test checks each series has some).
   */
  readonly datapoints: number;
}

export type WidgetData = WidgetPlacement &
  (
    | { readonly kind: 'text'; readonly title: undefined; readonly markdown: string }
    | {
        readonly kind: 'chart';
        readonly title: string;
        readonly series: readonly SeriesData[];
        /** Labels of the widget's series nothing local stands for. */
        readonly withoutCounterpart: readonly string[];
        readonly annotations: readonly { readonly label: string; readonly value: number }[];
      }
    | { readonly kind: 'no-local-counterpart'; readonly title: string; readonly metrics: readonly string[] }
    | { readonly kind: 'alarms'; readonly title: string; readonly alarms: readonly AlarmEvaluation[] }
  );

/** The start of each second of the run. */
export function secondsOf(run: RunSpan): Window[] {
  const count = Math.max(1, Math.ceil((run.endMs - run.startMs) / 1_000));
  return Array.from({ length: count }, (_, i) => ({
    startMs: run.startMs + i * 1_000,
    endMs: run.startMs + (i + 1) * 1_000,
  }));
}

export function widgetData(
  widgets: readonly DashboardWidget[],
  lookup: MetricLookup,
  run: RunSpan,
  alarms: readonly AlarmEvaluation[],
): WidgetData[] {
  const seconds = secondsOf(run);
  return widgets.map((widget): WidgetData => {
    const placement = { x: widget.x, y: widget.y, width: widget.width, height: widget.height };
    if (widget.type === 'text') {
      return { ...placement, kind: 'text', title: undefined, markdown: widget.markdown };
    }
    if (widget.type === 'alarm') {
      return {
        ...placement,
        kind: 'alarms',
        title: widget.title,
        alarms: widget.alarmLogicalIds.flatMap((id) => alarms.filter((a) => a.alarm.logicalId === id)),
      };
    }
    if (widget.type !== 'metric') {
      return { ...placement, kind: 'no-local-counterpart', title: widget.title ?? '', metrics: [] };
    }
    // Metrics first, then the expressions over them (by id), wherever they stand in the body.
    const metricValues = new Map<WidgetSeries, readonly (number | undefined)[] | undefined>();
    const byId: Record<string, readonly (number | undefined)[]> = {};
    // The same, before zeros are filled in: what counts as a datapoint.
    const measuredById: Record<string, readonly (number | undefined)[]> = {};
    const measured = new Map<WidgetSeries, readonly (number | undefined)[]>();
    for (const series of widget.series) {
      if (series.kind !== 'metric') continue;
      const samples = lookup(series);
      if (samples === undefined) continue;
      const raw = aggregate(samples, series.stat, seconds);
      // A metric never published stays empty, as in CloudWatch (a wrong dimension shows so here too).
      const fill = series.stat === 'Sum' && samples.length > 0;
      const values = raw.map((v) => (fill ? (v ?? 0) : v));
      metricValues.set(series, values);
      measured.set(series, raw);
      if (series.id !== undefined) {
        byId[series.id] = values;
        measuredById[series.id] = raw;
      }
    }
    const inputsKnown = (expression: string) => mathInputs(expression).every((id) => id in byId);
    const resolved = widget.series.map((series) => ({
      series,
      values:
        series.kind === 'metric'
          ? metricValues.get(series)
          : inputsKnown(series.expression)
            ? evaluateMath(series.expression, byId, 1)
            : undefined,
      measured:
        series.kind === 'metric'
          ? measured.get(series)
          : inputsKnown(series.expression)
            ? evaluateMath(series.expression, measuredById, 1)
            : undefined,
    }));
    const visible = resolved.filter(({ series }) => series.visible);
    const drawn = visible.filter((s) => s.values !== undefined);
    const withoutCounterpart = visible.filter((s) => s.values === undefined).map((s) => s.series.label);
    if (drawn.length === 0) {
      return { ...placement, kind: 'no-local-counterpart', title: widget.title, metrics: withoutCounterpart };
    }
    return {
      ...placement,
      kind: 'chart',
      title: widget.title,
      series: drawn.map(({ series, values, measured: own }) => ({
        label: series.label,
        axis: series.axis,
        values: (values ?? []).map((v) => v ?? null),
        datapoints: (own ?? []).filter((v) => v !== undefined).length,
      })),
      withoutCounterpart,
      annotations: widget.annotations,
    };
  });
}
