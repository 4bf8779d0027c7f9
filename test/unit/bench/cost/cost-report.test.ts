import { describe, expect, it } from 'vitest';
import type { BenchRow } from '../../../../bench/bench-json.js';
import { costHeadline, costTable, rowsAtReadingRtt } from '../../../../bench/cost/cost-report.js';

function row(
  contender: string,
  rttMs: number,
  total: number,
  store: BenchRow['store'] = 'dynamodb',
): BenchRow {
  return {
    scenario: 'new-4p',
    contender,
    store,
    rttMs,
    recordsPerSecond: 100,
    recordsPerSecondMin: 100,
    recordsPerSecondMax: 100,
    requestsPerRecord: 1,
    transactionsPerRecord: 1,
    refusedPerRecord: 0,
    writeUnitsPerRecord: 6,
    readUnitsPerRecord: 0,
    invocationsPerRecord: 0.01,
    billedMsPerRecord: 2,
    gbSecondsPerRecord: 0.002,
    dollarsPerMillion: {
      dynamoDbWrites: total - 0.05,
      dynamoDbReads: 0,
      lambdaRequests: 0.002,
      lambdaDuration: 0.048,
      total,
    },
    ratioToPowertools: 1,
    records: 100,
    runs: 1,
  };
}

describe('the cost report', () => {
  it('prices every contender in the rows at rttMs 10, a contender it has never heard of included', () => {
    const rows = [row('powertools', 10, 2.7), row('inbox-idempotent', 10, 0.68), row('powertools', 0, 9)];

    const lines = costHeadline(rows, ['powertools', 'inbox-idempotent']);

    expect(lines[0]).toContain('new-4p at rttMs 10');
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual([
      ['powertools', '$'],
      ['inbox-idempotent', '$'],
    ]);
    expect(lines[2]).toContain('0.68');
    expect(costTable(rows, ['new-4p'], ['powertools', 'inbox-idempotent'])).toContain(
      '| new-4p | inbox-idempotent | 6.00 | 0.00 |',
    );
  });

  it('reads each store at its own round trip, or at the largest it ran', () => {
    const rows = [row('a', 0.5, 1, 'redis'), row('a', 2, 1, 'redis'), row('b', 10, 1), row('b', 20, 1)];

    const read = rowsAtReadingRtt(rows, (store) => (store === 'redis' ? 0.5 : 5));

    expect(read.map((r) => [r.store, r.rttMs])).toEqual([
      ['redis', 0.5],
      ['dynamodb', 20],
    ]);
  });
});
