import { describe, expect, it } from 'vitest';
import { toRow } from '../../../bench/bench-json.js';
import type { DeliveryMeasurement, StoreName } from '../../../bench/measure/throughput.js';
import {
  POSTGRES_SECTION_END,
  POSTGRES_SECTION_START,
  withPostgresSection,
} from '../../../bench/postgres/postgres-report.js';
import { aggregate } from '../../../bench/results.js';

function measurement(store: StoreName, contender: string, requests: number, transactions: number) {
  return {
    contender,
    store,
    scenario: 'new-4p',
    rttMs: 5,
    records: 100,
    milliseconds: 1000,
    invocations: 1,
    billedMilliseconds: 1000,
    cpuMilliseconds: 10,
    tally: { requests, refused: 0, transactions, wcu: 0, byCommand: { BEGIN: transactions } },
  } satisfies DeliveryMeasurement;
}

describe('results say which store they ran on', () => {
  it('keeps each measurement’s store through aggregation into the JSON row', () => {
    const results = aggregate([
      measurement('postgres', 'inbox-pg-ungrouped', 500, 100),
      measurement('postgres', 'inbox-pg-ungrouped', 500, 100),
      measurement('dynamodb', 'inbox-tx-ungrouped', 100, 100),
    ]);
    const postgres = results.find((r) => r.contender === 'inbox-pg-ungrouped');
    const dynamodb = results.find((r) => r.contender === 'inbox-tx-ungrouped');
    expect(postgres).toMatchObject({ store: 'postgres', requestsPerRecord: 5, transactionsPerRecord: 1 });
    expect(dynamodb).toMatchObject({ store: 'dynamodb', requestsPerRecord: 1, transactionsPerRecord: 1 });
    expect(toRow(postgres as NonNullable<typeof postgres>)).toMatchObject({
      store: 'postgres',
      requestsPerRecord: 5,
      transactionsPerRecord: 1,
      runs: 2,
    });
  });

  it('never merges two stores’ rows of the same name', () => {
    const results = aggregate([measurement('postgres', 'same', 4, 1), measurement('dynamodb', 'same', 1, 1)]);
    expect(results.map((r) => r.store).sort()).toEqual(['dynamodb', 'postgres']);
  });
});

describe('the Postgres section of the page', () => {
  const section = (text: string) => `${POSTGRES_SECTION_START}\n${text}\n${POSTGRES_SECTION_END}`;

  it('replaces only what lies between its markers', () => {
    const page = `# Page\n\nbefore\n\n${section('old rows')}\n\n## After\n`;
    expect(withPostgresSection(page, section('new rows'))).toBe(
      `# Page\n\nbefore\n\n${section('new rows')}\n\n## After\n`,
    );
  });

  it('is added at the end of a page that has none, and makes a page of its own when there is no page', () => {
    expect(withPostgresSection('# Page\n', section('rows'))).toBe(`# Page\n\n${section('rows')}\n`);
    expect(withPostgresSection(undefined, section('rows'))).toBe(`# Benchmarks\n\n${section('rows')}\n`);
  });
});
