/**
 * The dashboard and the alarms agree with what the handler emits (docs/deploy.md#the-dashboard): every
 * metric of the handler's namespace that a widget draws or an alarm watches, with its dimensions and
 * statistic, is in the EMF a real consumer writes, and every metric that EMF holds is drawn. The consumers
 * run as deployed: under the synthesized function's Environment.Variables (the table names swapped for
 * DynamoDB Local's test tables, the rest as lib/kafka-consumer.ts sets it: service name, metrics
 * namespace, consumer name, settings), with metrics on, through batches that meet every outcome, and their
 * stdout is read as CloudWatch Logs reads EMF. Every metric lambdas/core/metric-names.ts defines is
 * emitted by the run and drawn, and the dashboard reads no other name in the namespace. The mapping's and Lambda's own metrics (AWS/Lambda) cannot be produced
 * here: their dimensions are checked against the assumption docs/deploy.md states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import type { Effect } from '../../../lambdas/core/effect.js';
import {
  BATCH_METRICS,
  EVENT_METRICS,
  METRICS_NAMESPACE,
  OUTCOME_METRICS,
} from '../../../lambdas/core/metric-names.js';
import { refPlaceholder } from '../../../local/dashboard/dashboard-body.js';
import { type EmfMetric, parseEmfLog } from '../../../local/dashboard/emf.js';
import { type MetricKey, sameDimensions } from '../../../local/dashboard/local-metrics.js';
import {
  type SampleDashboard,
  synthesizeSampleDashboard,
} from '../../../local/dashboard/sample-dashboard.js';
import { statistic } from '../../../local/dashboard/statistics.js';
import type { MetricQuery } from '../../../local/dashboard/template-alarms.js';
import { PROJECT_ROOT } from '../../../local/project-paths.js';
import { orderConsumer } from '../../../sample/order-consumer/order-placed.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { dynamoDbStore, entry } from '../../support/inbox-store.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { CONSUMER } from '../../support/order-consumer.js';

/** Every metric name the handler can emit: the definitions of lambdas/core/metric-names.ts. */
const HANDLER_METRIC_NAMES: readonly string[] = [
  ...Object.values(OUTCOME_METRICS),
  ...Object.values(EVENT_METRICS),
  ...Object.values(BATCH_METRICS),
];

/** Measurements rather than counts: emitted with every batch, any value (a 0 ms duration included). */
const MEASURED: readonly string[] = [
  BATCH_METRICS.records,
  BATCH_METRICS.duration,
  BATCH_METRICS.recordLatency,
];

interface Referenced extends MetricQuery {
  /** The widget's title or the alarm's name. */
  readonly where: string;
}

function referencedMetrics(dashboard: SampleDashboard): Referenced[] {
  const fromWidgets = dashboard.widgets.flatMap((widget) =>
    widget.type === 'metric'
      ? widget.series.flatMap((s) =>
          s.kind === 'metric' ? [{ ...s, where: `widget "${widget.title}"` }] : [],
        )
      : [],
  );
  const fromAlarms = dashboard.alarms.flatMap((alarm) =>
    Object.values(alarm.metrics).map((metric) => ({ ...metric, where: `alarm ${alarm.name}` })),
  );
  return [...fromWidgets, ...fromAlarms];
}

const describeKey = (m: MetricKey) => `${m.namespace}/${m.name} ${JSON.stringify(m.dimensions)}`;

/** The table each of the function's table variables names, here: the test table of the same role. */
const TEST_TABLE_OF: Readonly<Record<string, (tables: TestTables) => string>> = {
  INBOX_TABLE_NAME: (tables) => tables.inboxTableName,
  APP_TABLE_NAME: (tables) => tables.appTableName,
};

/**
 * The Environment.Variables of the function the template's event source mapping invokes, as Lambda would
 * set them: a table's Ref becomes the test table of its variable; any other reference fails.
 */
function deployedEnvironment(dashboard: SampleDashboard, tables: TestTables): Record<string, string> {
  const resources = dashboard.resources;
  const mappings = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
  expect(mappings).toHaveLength(1);
  const functionId = (mappings[0]?.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref ?? '';
  const variables = (
    resources[functionId]?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined
  )?.Variables;
  if (variables === undefined) throw new Error(`function ${functionId} has no Environment.Variables`);
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      const ref = (value as { Ref?: string }).Ref;
      const table = TEST_TABLE_OF[name];
      if (ref === undefined || resources[ref]?.Type !== 'AWS::DynamoDB::Table' || table === undefined) {
        throw new Error(`${name}=${JSON.stringify(value)}: no local stand-in for it`);
      }
      return [name, table(tables)];
    }),
  );
}

/**
 * Runs batches meeting every outcome through two real consumers configured by the environment alone (no
 * settings, logger or metrics in code, as the deployed handler.ts); returns what they wrote to stdout.
 */
async function emfOfEveryOutcome(tables: TestTables): Promise<string> {
  const clock = new ManualClock();
  const appTableName = process.env.APP_TABLE_NAME ?? '';
  const sample = createObservedInboxConsumer(
    { ...orderConsumer(appTableName), dynamoDb: tables.client },
    { clock },
  );
  let sideEffect: Effect = () => ({ kind: 'call', run: async () => undefined });
  const calls = createObservedInboxConsumer(
    { effect: (input) => sideEffect(input), dynamoDb: tables.client },
    { clock },
  );
  const printed: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    printed.push(String(chunk));
    return true;
  });
  // The deployed log level logs the failed batch's error: not EMF, kept out of the test's output.
  const errors = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const context = (remainingMs = 60_000) => lambdaContext(clock, remainingMs);
    // processed, duplicate (an earlier copy in the batch), quarantined (undecodable), skipped (another type)
    await sample(
      kafkaEvent([
        orderRecord(1, { eventId: 'a1' }),
        orderRecord(2, { eventId: 'a1' }),
        { offset: 3, headers: { event_id: 'p1' }, value: '{"event_id": "p1", "type": "Order' },
        { offset: 4, headers: { event_id: 's1' }, value: { event_id: 's1', type: 'OrderCancelled' } },
      ]),
      context(),
    );
    // quarantined with a payload conflict: the same event_id, another payload
    await sample(kafkaEvent([orderRecord(5, { eventId: 'a1', amount: 999 })]), context());
    // deferred: the deadline is within DEADLINE_MARGIN_MS
    await sample(kafkaEvent([orderRecord(6, { eventId: 'd1' })]), context(10));
    // in flight (another attempt holds the lease), then blocked behind it
    await dynamoDbStore(tables, clock).claim(entry('f1'), clock.nowMs() + 60_000);
    await calls(
      kafkaEvent([orderRecord(7, { eventId: 'f1' }), orderRecord(8, { eventId: 'f2' })]),
      context(),
    );
    // failed (the effect throws), then blocked behind it
    sideEffect = () => ({
      kind: 'call',
      run: async () => {
        throw new Error('downstream answered 503');
      },
    });
    await calls(
      kafkaEvent([orderRecord(9, { eventId: 'x1' }), orderRecord(10, { eventId: 'x2' })]),
      context(),
    );
    // a lost lease: the effect outlives its lease and another attempt takes the key over meanwhile
    sideEffect = ({ dedupKey }) => ({
      kind: 'call',
      run: async () => {
        clock.advance(120_000);
        await dynamoDbStore(tables, clock).claim(entry(dedupKey), clock.nowMs() + 60_000);
      },
    });
    await calls(kafkaEvent([orderRecord(11, { eventId: 'l1' })]), context(30_000));
    // a failed batch: an envelope that is no Kafka event
    await expect(sample({ records: 'none' }, context())).rejects.toThrow();
  } finally {
    write.mockRestore();
    errors.mockRestore();
  }
  return printed.join('');
}

describe('the dashboard and the alarms against the EMF the handler writes', () => {
  let tables: TestTables;
  let dashboard: SampleDashboard;
  let emitted: EmfMetric[];
  let problems: string[];
  const saved = { ...process.env };

  beforeAll(async () => {
    [tables, dashboard] = await Promise.all([createTestTables(), synthesizeSampleDashboard(CONSUMER)]);
    // vitest.config.ts turns metrics off and logs down for every test; the deployed function has neither.
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_DEV;
    Object.assign(process.env, deployedEnvironment(dashboard, tables));
    ({ metrics: emitted, problems } = parseEmfLog(await emfOfEveryOutcome(tables)));
  }, 60_000);

  afterAll(() => {
    process.env = { ...saved };
  });

  it('writes EMF that CloudWatch accepts, with every metric metric-names.ts defines, each count above 0', () => {
    expect(problems).toEqual([]);
    const sums = new Map<string, number>();
    for (const m of emitted) {
      if (m.namespace !== METRICS_NAMESPACE) continue;
      sums.set(m.name, (sums.get(m.name) ?? 0) + m.values.reduce((a, b) => a + b, 0));
    }
    expect(HANDLER_METRIC_NAMES.filter((name) => !sums.has(name))).toEqual([]);
    const counts = HANDLER_METRIC_NAMES.filter((name) => !MEASURED.includes(name));
    expect(counts.filter((name) => !((sums.get(name) ?? 0) > 0))).toEqual([]);
  });

  it('draws or alarms on every metric the handler can emit, and reads no other name in its namespace', () => {
    const read = new Set(
      referencedMetrics(dashboard)
        .filter((m) => m.namespace === METRICS_NAMESPACE)
        .map((m) => m.name),
    );
    expect(HANDLER_METRIC_NAMES.filter((name) => !read.has(name))).toEqual([]);
    expect([...read].filter((name) => !HANDLER_METRIC_NAMES.includes(name))).toEqual([]);
  });

  it("emits every metric of the handler's namespace that a widget or an alarm reads, with its dimensions and statistic", () => {
    const handlerMetrics = referencedMetrics(dashboard).filter((m) => m.namespace === METRICS_NAMESPACE);
    expect(handlerMetrics.length).toBeGreaterThan(0);
    const neverEmitted = handlerMetrics.flatMap((referenced) => {
      const values = emitted
        .filter(
          (m) =>
            m.namespace === referenced.namespace &&
            m.name === referenced.name &&
            sameDimensions(m.dimensions, referenced.dimensions),
        )
        .flatMap((m) => m.values);
      if (values.length === 0) return [`${describeKey(referenced)} (${referenced.where}) is never emitted`];
      // A statistic CloudWatch cannot compute from the published values (a typo, an unknown one) throws.
      return statistic(values, referenced.stat) === undefined
        ? [`${referenced.stat} of ${referenced.name} (${referenced.where}) has no value`]
        : [];
    });
    expect(neverEmitted).toEqual([]);
  });

  it('draws every metric the handler emits, under the dimension set it is emitted with', () => {
    const drawn = referencedMetrics(dashboard).filter((m) => !m.where.startsWith('alarm'));
    const undrawn = new Set(
      emitted
        .filter(
          (m) =>
            !drawn.some(
              (d) =>
                d.namespace === m.namespace &&
                d.name === m.name &&
                sameDimensions(d.dimensions, m.dimensions),
            ),
        )
        .map(describeKey),
    );
    expect([...undrawn]).toEqual([]);
  });

  it("reads each AWS/Lambda metric with the dimension docs/deploy.md's table states for it, naming the one mapping or function", () => {
    // Not producible here. Assumed (AWS's metrics reference names no dimensions for them): the mapping's
    // metrics by EventSourceMappingUUID, the function's (OffsetLag, Invocations, Errors, Duration...) by
    // FunctionName. https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
    const resources = Object.entries(dashboard.resources);
    const only = (type: string) => {
      const found = resources.filter(([, r]) => r.Type === type).map(([id]) => id);
      expect(found).toHaveLength(1);
      return refPlaceholder(found[0] as string);
    };
    const resourceOf: Record<string, string> = {
      EventSourceMappingUUID: only('AWS::Lambda::EventSourceMapping'),
      FunctionName: only('AWS::Lambda::Function'),
    };
    const stated = deployMdLambdaDimensions();
    const lambdaMetrics = referencedMetrics(dashboard).filter((m) => m.namespace === 'AWS/Lambda');
    expect(lambdaMetrics.length).toBeGreaterThan(0);
    const otherwise = lambdaMetrics.flatMap((m) => {
      const dimension = stated.get(m.name);
      if (dimension === undefined) return [`${m.name} (${m.where}) is not in docs/deploy.md's table`];
      const expected = { [dimension]: resourceOf[dimension] ?? `an unknown dimension ${dimension}` };
      return sameDimensions(m.dimensions, expected)
        ? []
        : [`${describeKey(m)} (${m.where}): docs/deploy.md states ${JSON.stringify(expected)}`];
    });
    expect(otherwise).toEqual([]);
    // And the table names no metric the dashboard does not read.
    const read = new Set(lambdaMetrics.map((m) => m.name));
    expect([...stated.keys()].filter((name) => !read.has(name))).toEqual([]);
  });
});

/**
 * docs/deploy.md's table of the AWS/Lambda metrics the dashboard reads, under "## The dashboard": each row
 * lists metrics in backticks, then the one dimension they are read with.
 */
function deployMdLambdaDimensions(): Map<string, string> {
  const deployMd = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
  const section = deployMd.slice(deployMd.indexOf('## The dashboard'));
  const table = section.slice(section.indexOf('| `AWS/Lambda` metrics | dimension |'));
  const rows = table.split('\n').slice(2);
  const stated = new Map<string, string>();
  for (const row of rows) {
    const cells = /^\|(.*)\|\s*`(\w+)`\s*\|$/.exec(row.trim());
    if (!cells) break;
    for (const [, name = ''] of (cells[1] ?? '').matchAll(/`(\w+)`/g)) {
      expect(stated.has(name), `${name} twice in docs/deploy.md's table`).toBe(false);
      stated.set(name, cells[2] ?? '');
    }
  }
  expect(stated.size).toBeGreaterThan(0);
  return stated;
}
