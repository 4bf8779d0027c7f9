import { describe, expect, it } from 'vitest';
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
