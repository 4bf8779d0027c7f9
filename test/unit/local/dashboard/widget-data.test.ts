import { describe, expect, it } from 'vitest';
import type { DashboardWidget } from '../../../../local/dashboard/dashboard-body.js';
import type { MetricLookup } from '../../../../local/dashboard/local-metrics.js';
import { widgetData } from '../../../../local/dashboard/widget-data.js';

const START = 1_000_000;
const RUN = { startMs: START, endMs: START + 5_000 };

const series = (name: string, stat: string, id?: string) => ({
  kind: 'metric' as const,
  namespace: 'MskInbox',
  name,
  dimensions: {},
  stat,
  label: name,
  id,
  visible: true,
  axis: 'left' as const,
});

const widget: DashboardWidget = {
  type: 'metric',
  x: 0,
  y: 0,
  width: 8,
  height: 6,
  title: 'T',
  periodSeconds: 300,
  annotations: [],
  series: [
    series('Processed', 'Sum', 'p'),
    series('BatchDuration', 'p99'),
    series('FailedBatches', 'Sum'),
    { kind: 'expression', expression: 'p * 2', label: 'twice', id: undefined, visible: true, axis: 'left' },
  ],
};

const lookup: MetricLookup = ({ name }) =>
  ({
    Processed: [
      { timeMs: START + 500, value: 3 },
      { timeMs: START + 3_200, value: 1 },
    ],
    BatchDuration: [{ timeMs: START + 1_500, value: 40 }],
    FailedBatches: [],
  })[name];

describe('widgetData', () => {
  it("counts as datapoints the seconds with a value of the run's own, not the zeros filled into a count", () => {
    const [data] = widgetData([widget], lookup, RUN, []);
    expect(data?.kind === 'chart' && data.series.map((s) => [s.label, s.values, s.datapoints])).toEqual([
      ['Processed', [3, 0, 0, 1, 0], 2],
      ['BatchDuration', [null, 40, null, null, null], 1],
      ['FailedBatches', [null, null, null, null, null], 0],
      ['twice', [6, 0, 0, 2, 0], 2],
    ]);
  });
});
