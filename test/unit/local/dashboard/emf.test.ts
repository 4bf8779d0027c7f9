import { describe, expect, it } from 'vitest';
import { parseDashboardBody, resolvePlaceholders } from '../../../../local/dashboard/dashboard-body.js';
import { parseEmfLine } from '../../../../local/dashboard/emf.js';

const emf = (root: Record<string, unknown>, directive: Record<string, unknown>) =>
  JSON.stringify({ _aws: { Timestamp: 1_000, CloudWatchMetrics: [directive] }, ...root });

describe('parseEmfLine', () => {
  it('yields each metric once per dimension set, with array values and the dimension values of the root', () => {
    const line = emf(
      { service: 'orders', stage: 'prod', Latency: [3, 5], Count: 2 },
      {
        Namespace: 'MskInbox',
        Dimensions: [['service'], ['service', 'stage']],
        Metrics: [{ Name: 'Latency', Unit: 'Milliseconds' }, { Name: 'Count' }],
      },
    );

    const parsed = parseEmfLine(line);

    expect(parsed.kind === 'metrics' && parsed.metrics.map((m) => [m.name, m.dimensions, m.values])).toEqual([
      ['Latency', { service: 'orders' }, [3, 5]],
      ['Latency', { service: 'orders', stage: 'prod' }, [3, 5]],
      ['Count', { service: 'orders' }, [2]],
      ['Count', { service: 'orders', stage: 'prod' }, [2]],
    ]);
  });

  it('refuses what CloudWatch would not extract: a dimension without a string value, a metric without a number', () => {
    const directive = { Namespace: 'MskInbox', Dimensions: [['service']], Metrics: [{ Name: 'Count' }] };
    expect(parseEmfLine(emf({ service: 7, Count: 1 }, directive)).kind).toBe('invalid');
    expect(parseEmfLine(emf({ service: 'orders', Count: 'one' }, directive)).kind).toBe('invalid');
    expect(parseEmfLine(emf({ service: 'orders' }, directive)).kind).toBe('invalid');
  });

  it('passes over log lines that are not EMF', () => {
    expect(parseEmfLine('{"level":"INFO","message":"batch processed"}').kind).toBe('not-emf');
    expect(parseEmfLine('START RequestId: 1').kind).toBe('not-emf');
  });
});

describe('the dashboard body', () => {
  it('resolves references to placeholders naming their logical ids', () => {
    expect(
      resolvePlaceholders({
        'Fn::Join': ['', ['a ', { Ref: 'Fn1' }, ' ', { 'Fn::GetAtt': ['Alarm1', 'Arn'] }]],
      }),
    ).toBe('a ref:Fn1 attr:Alarm1.Arn');
  });

  it('reads metrics with "." shorthand, options, hidden inputs and expressions, and alarm widgets', () => {
    const widgets = parseDashboardBody(
      JSON.stringify({
        widgets: [
          {
            type: 'metric',
            x: 8,
            y: 2,
            width: 8,
            height: 6,
            properties: {
              title: 'T',
              period: 60,
              metrics: [
                [{ expression: 'a + b', label: 'sum' }],
                ['NS', 'A', 'service', 'orders', { id: 'a', visible: false, stat: 'Sum' }],
                ['.', 'B', '.', '.', { id: 'b', visible: false, yAxis: 'right' }],
              ],
            },
          },
          { type: 'alarm', properties: { title: 'Alarms', alarms: ['attr:Alarm1.Arn'] } },
        ],
      }),
    );

    expect(widgets[0]).toMatchObject({ type: 'metric', x: 8, y: 2, title: 'T', periodSeconds: 60 });
    expect(widgets[0]?.type === 'metric' && widgets[0].series).toEqual([
      { kind: 'expression', expression: 'a + b', label: 'sum', id: undefined, visible: true, axis: 'left' },
      {
        kind: 'metric',
        namespace: 'NS',
        name: 'A',
        dimensions: { service: 'orders' },
        stat: 'Sum',
        label: 'A',
        id: 'a',
        visible: false,
        axis: 'left',
      },
      {
        kind: 'metric',
        namespace: 'NS',
        name: 'B',
        dimensions: { service: 'orders' },
        stat: 'Average',
        label: 'B',
        id: 'b',
        visible: false,
        axis: 'right',
      },
    ]);
    expect(widgets[1]).toMatchObject({ type: 'alarm', alarmLogicalIds: ['Alarm1'], width: 6, height: 6 });
  });
});
