import { describe, expect, it } from 'vitest';
import type { DeliveryMeasurement, StoreName } from '../../../bench/measure/throughput.js';
import { withSection } from '../../../bench/page-section.js';
import { POSTGRES_SECTION_END, POSTGRES_SECTION_START } from '../../../bench/postgres/postgres-report.js';
import {
  REDIS_READING_RTT_MS,
  REDIS_SECTION,
  reading,
  redisRow,
  redisTable,
} from '../../../bench/redis/redis-report.js';
import { aggregate } from '../../../bench/results.js';
import type { ScenarioName } from '../../../bench/scenarios.js';
import { TARGET_RTT_MS } from '../../../bench/targets.js';

interface Delivery {
  readonly store: StoreName;
  readonly scenario?: ScenarioName;
  readonly rttMs: number;
  /** Wall time of the delivery's 100 records. */
  readonly milliseconds: number;
  readonly requests?: number;
  readonly refused?: number;
  readonly byCommand?: Record<string, number>;
}

/** 100 records: by default new ones, a claim and a completion each. */
function delivery(d: Delivery): DeliveryMeasurement {
  const byCommand =
    d.byCommand ??
    (d.store === 'redis' ? { claim: 100, complete: 100 } : { PutItemCommand: 100, UpdateItemCommand: 100 });
  return {
    contender: `inbox-call-${d.store}`,
    store: d.store,
    scenario: d.scenario ?? 'new-4p',
    rttMs: d.rttMs,
    records: 100,
    milliseconds: d.milliseconds,
    invocations: 1,
    billedMilliseconds: Math.ceil(d.milliseconds),
    cpuMilliseconds: 1,
    tally: { requests: d.requests ?? 200, refused: d.refused ?? 0, transactions: 0, wcu: 0, byCommand },
  };
}

describe('the Redis section’s table', () => {
  it('gives each store a line per scenario, ms/record at each round trip it ran at and – where it did not', () => {
    const rows = aggregate([
      delivery({ store: 'redis', rttMs: 0.5, milliseconds: 50 }),
      delivery({ store: 'redis', rttMs: 2, milliseconds: 150 }),
      delivery({ store: 'dynamodb', rttMs: 2, milliseconds: 200 }),
      delivery({ store: 'dynamodb', rttMs: 10, milliseconds: 600 }),
    ]);

    const lines = redisTable(rows).split('\n');

    expect(lines[0]).toBe(
      '| scenario | store | requests/record | refused/record | by command, per record | 0.5 ms | 2 ms | 10 ms |',
    );
    expect(lines.slice(2)).toEqual([
      '| new-4p | redis | 2.000 | 0.000 | claim 1.000, complete 1.000 | 0.50 | 1.50 | – |',
      '| new-4p | dynamodb | 2.000 | 0.000 | PutItem 1.000, UpdateItem 1.000 | – | 2.00 | 6.00 |',
    ]);
  });

  it('shows the range of requests per record where round trips gave different counts (a retry)', () => {
    const rows = aggregate([
      delivery({ store: 'redis', rttMs: 0.5, milliseconds: 50 }),
      delivery({ store: 'redis', rttMs: 1, milliseconds: 90, requests: 201 }),
    ]);
    expect(redisTable(rows)).toContain('| new-4p | redis | 2.000–2.010 | 0.000 |');
  });

  it('takes the median run’s time per record', () => {
    const rows = aggregate(
      [30, 50, 200].map((milliseconds) => delivery({ store: 'redis', rttMs: 0.5, milliseconds })),
    );
    expect(redisTable(rows)).toContain('| 0.50 |');
  });
});

describe('the Redis JSON rows', () => {
  it('carry ms/record, the store and the commands per record, and no Powertools ratio', () => {
    const [row] = aggregate([delivery({ store: 'redis', rttMs: 0.25, milliseconds: 40 })]);
    const json = redisRow(row as NonNullable<typeof row>);
    expect(json).toMatchObject({
      store: 'redis',
      rttMs: 0.25,
      msPerRecord: 0.4,
      requestsPerRecord: 2,
      byCommandPerRecord: { claim: 1, complete: 1 },
    });
    expect(json).not.toHaveProperty('ratioToPowertools');
  });
});

describe('the Redis section’s reading', () => {
  const both = (scenario: ScenarioName, requests: number, refused: number) => [
    delivery({ store: 'redis', scenario, rttMs: REDIS_READING_RTT_MS, milliseconds: 120, requests, refused }),
    delivery({ store: 'dynamodb', scenario, rttMs: TARGET_RTT_MS, milliseconds: 2_100, requests, refused }),
  ];

  it('quotes this run’s figures at the reading round trips, with the model’s share', () => {
    const text = reading(
      aggregate([...both('new-4p', 200, 0), ...both('redelivery-4p', 100, 100), ...both('hot-1p', 200, 0)]),
    );
    expect(text).toContain(
      `on Redis at rttMs ${REDIS_READING_RTT_MS} (a node in the\nfunction's AZ) 1.20 ms/record, of which the model's 1.00`,
    );
    expect(text).toContain(
      `on DynamoDB at rttMs ${TARGET_RTT_MS} 21.00 ms/record, of which\nthe model's 20.00`,
    );
    expect(text).toContain('redelivery-4p: 1.000 and 1.000, refused 1.000 and 1.000');
  });

  it('says there is no reading when a reading round trip was not run', () => {
    expect(reading(aggregate(both('new-4p', 200, 0)))).toMatch(/was not run: no reading/);
  });
});

describe('the Redis section of the page', () => {
  const redis = (text: string) => `${REDIS_SECTION.start}\n${text}\n${REDIS_SECTION.end}`;
  const postgres = `${POSTGRES_SECTION_START}\npostgres rows\n${POSTGRES_SECTION_END}`;

  it('replaces only its own section, leaving the Postgres one as it was', () => {
    const page = `# Page\n\n${postgres}\n\n${redis('old rows')}\n\n## Machine\n`;
    expect(withSection(page, redis('new rows'), REDIS_SECTION)).toBe(
      `# Page\n\n${postgres}\n\n${redis('new rows')}\n\n## Machine\n`,
    );
  });

  it('is added at the end of a page that has none', () => {
    expect(withSection(`# Page\n\n${postgres}\n`, redis('rows'), REDIS_SECTION)).toBe(
      `# Page\n\n${postgres}\n\n${redis('rows')}\n`,
    );
  });
});
