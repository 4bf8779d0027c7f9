/**
 * Every metric and widget of an outbox relay's dashboard, in one place as for the consumer's
 * (consumer-metrics.ts, consumer-widgets.ts), all at one period: the relay's EMF metrics
 * (relay-metric-names.ts) and its function's; for OutboxRelay the stream mapping's, the failure queue's
 * and the outbox table's; for PostgresOutboxRelay the database's (database-widgets.ts).
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { OutboxRelay } from '../outbox-relay.js';
import type { PostgresOutboxRelay } from '../postgres-outbox-relay.js';
import { PERIOD } from './consumer-metrics.js';
import { databaseWidgets } from './database-widgets.js';
import { RELAY_METRICS } from './relay-metric-names.js';

/**
 * The stream mapping's EventCount metrics (MetricsConfig), those a DynamoDB stream has.
 * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
 */
export const RELAY_ESM_METRICS = [
  'PolledEventCount',
  'FilteredOutEventCount',
  'InvokedEventCount',
  'FailedInvokeEventCount',
  'DroppedEventCount',
  'OnFailureDestinationDeliveredEventCount',
] as const;

/** The metrics every relay has: the EMF metrics it emits and its function's. */
export class RelayMetrics {
  readonly #function: lambda.IFunction;

  constructor(fn: lambda.IFunction) {
    this.#function = fn;
  }

  /** A metric the relay emits as EMF, dimension `service` = its function's name. */
  relay(metricName: string, statistic: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: RELAY_METRICS.namespace,
      metricName,
      dimensionsMap: { [RELAY_METRICS.dimension]: this.#function.functionName },
      statistic,
      period: PERIOD,
    });
  }

  functionErrors(): cloudwatch.Metric {
    return this.#function.metricErrors({ period: PERIOD, statistic: 'Sum' });
  }

  /** Invocations started in the period; Lambda sends no datapoint for a period without one. */
  invocations(): cloudwatch.Metric {
    return this.#function.metricInvocations({ period: PERIOD, statistic: 'Sum' });
  }

  functionHealth(): cloudwatch.IMetric[] {
    const fn = this.#function;
    return [
      fn.metricInvocations({ period: PERIOD }),
      fn.metricErrors({ period: PERIOD }),
      fn.metricThrottles({ period: PERIOD }),
    ];
  }

  functionDuration(statistic: string): cloudwatch.Metric {
    return this.#function.metricDuration({
      period: PERIOD,
      statistic,
      label: `Duration ${statistic}`,
    });
  }
}

/** OutboxRelay's besides: its stream mapping, its failure queue and the outbox table. */
export class StreamRelayMetrics extends RelayMetrics {
  readonly #relay: OutboxRelay;

  constructor(relay: OutboxRelay) {
    super(relay.function);
    this.#relay = relay;
  }

  /**
   * How far behind the stream the relay reads: the age of the last record of each batch it got, in ms.
   * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#performance-metrics
   */
  iteratorAge(): cloudwatch.Metric {
    return this.#relay.function.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD });
  }

  mapping(metricName: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { EventSourceMappingUUID: this.#relay.eventSourceMappingUuid },
      statistic: 'Sum',
      label: metricName.replace(/(Event)?Count$/, ''),
      period: PERIOD,
    });
  }

  /** Messages in the failure queue: stream batches Lambda gave up on. */
  failedBatches(): cloudwatch.Metric {
    return this.#relay.failureQueue.metricApproximateNumberOfMessagesVisible({
      statistic: 'Maximum',
      period: PERIOD,
    });
  }

  outboxThrottles(): cloudwatch.IMetric[] {
    const table = this.#relay.outbox.table;
    return [
      table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
      table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
    ];
  }
}

function graph(
  title: string,
  left: cloudwatch.IMetric[],
  options: Partial<cloudwatch.GraphWidgetProps> = {},
) {
  return new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, period: PERIOD, ...options });
}

function titleRow(title: string, text: string): cloudwatch.IWidget[] {
  return [new cloudwatch.TextWidget({ markdown: `# ${title}\n${text}`, width: 24, height: 2 })];
}

function topicList(topics: readonly string[]): string {
  return topics.map((t) => `\`${t}\``).join(', ');
}

/** What the relay did with the events, the oldest one waiting, and the alarms. */
function eventsRow(
  metrics: RelayMetrics,
  alarms: readonly cloudwatch.IAlarm[],
  pendingAgeMs: number,
): cloudwatch.IWidget[] {
  return [
    graph('Events (count)', [
      metrics.relay(RELAY_METRICS.eventsPublished, 'Sum'),
      metrics.relay(RELAY_METRICS.eventsQuarantined, 'Sum'),
      metrics.relay(RELAY_METRICS.publishFailures, 'Sum'),
    ]),
    graph('Oldest unpublished event (ms)', [metrics.relay(RELAY_METRICS.oldestPendingAgeMs, 'Maximum')], {
      leftAnnotations: [{ value: pendingAgeMs, label: 'alarm threshold' }],
    }),
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 8, height: 6 }),
  ];
}

function functionWidgets(metrics: RelayMetrics, timeoutMs: number): cloudwatch.IWidget[] {
  return [
    graph('Lambda: invocations, errors, throttles', metrics.functionHealth()),
    graph(
      'Lambda: duration against timeout (ms)',
      ['p50', 'p99', 'Maximum'].map((statistic) => metrics.functionDuration(statistic)),
      { leftAnnotations: [{ value: timeoutMs, label: 'timeout', color: '#d62728' }] },
    ),
  ];
}

/** OutboxRelay's dashboard, row by row. */
export function streamRelayWidgets(
  metrics: StreamRelayMetrics,
  relay: OutboxRelay,
  alarms: readonly cloudwatch.IAlarm[],
  thresholds: { readonly iteratorAgeMs: number; readonly pendingAgeMs: number },
): cloudwatch.IWidget[][] {
  return [
    titleRow(
      'Outbox relay',
      `Publishes the consumers' appended events to ${topicList(relay.topics)}. Events come from the relay (namespace ${RELAY_METRICS.namespace}, dimension ${RELAY_METRICS.dimension}); lag from Lambda's stream mapping. See docs/deploy.md#outbox-relay-alarms.`,
    ),
    eventsRow(metrics, alarms, thresholds.pendingAgeMs),
    [
      graph('Stream iterator age (ms)', [metrics.iteratorAge()], {
        leftAnnotations: [{ value: thresholds.iteratorAgeMs, label: 'alarm threshold' }],
      }),
      graph(
        'Stream mapping: events',
        RELAY_ESM_METRICS.map((name) => metrics.mapping(name)),
      ),
      graph('Failure queue: batches given up on', [metrics.failedBatches()]),
    ],
    [
      ...functionWidgets(metrics, relay.timeout.toMilliseconds()),
      graph('DynamoDB outbox: throttles', metrics.outboxThrottles()),
    ],
  ];
}

/** PostgresOutboxRelay's dashboard, row by row. */
export function postgresRelayWidgets(
  metrics: RelayMetrics,
  relay: PostgresOutboxRelay,
  alarms: readonly cloudwatch.IAlarm[],
  thresholds: { readonly pendingAgeMs: number },
): cloudwatch.IWidget[][] {
  const minutes = relay.schedule.toMinutes();
  return [
    titleRow(
      'Postgres outbox relay',
      `Publishes the events of the outbox in schema \`${relay.postgres.schema}\` to ${topicList(relay.topics)}, started every ${minutes} minute${minutes === 1 ? '' : 's'} and running until just before its timeout. Events come from the relay (namespace ${RELAY_METRICS.namespace}, dimension ${RELAY_METRICS.dimension}). See docs/deploy.md#outbox-relay-alarms.`,
    ),
    eventsRow(metrics, alarms, thresholds.pendingAgeMs),
    functionWidgets(metrics, relay.timeout.toMilliseconds()),
    databaseWidgets(relay.postgres.database),
  ];
}
