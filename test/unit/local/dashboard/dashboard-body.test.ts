import { describe, expect, it } from 'vitest';
import { parseDashboardBody, resolvePlaceholders } from '../../../../local/dashboard/dashboard-body.js';

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
