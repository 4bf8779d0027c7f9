/**
 * Every metric and widget of the outbox relay's dashboard, in one place as for the consumer's
 * (consumer-metrics.ts, consumer-widgets.ts): the relay's EMF metrics (relay-metric-names.ts), the stream
 * mapping's, the function's, the failure queue's and the outbox table's, all at one period.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { OutboxRelay } from '../outbox-relay.js';
import { PERIOD } from './consumer-metrics.js';
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

export class RelayMetrics {
  readonly #relay: OutboxRelay;

  constructor(relay: OutboxRelay) {
    this.#relay = relay;
  }

  /** A metric the relay emits as EMF, dimension `service` = its function's name. */
  relay(metricName: string, statistic: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: RELAY_METRICS.namespace,
      metricName,
      dimensionsMap: { [RELAY_METRICS.dimension]: this.#relay.function.functionName },
      statistic,
      period: PERIOD,
    });
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

  functionErrors(): cloudwatch.Metric {
    return this.#relay.function.metricErrors({ period: PERIOD, statistic: 'Sum' });
  }

  functionHealth(): cloudwatch.IMetric[] {
    const fn = this.#relay.function;
    return [
      fn.metricInvocations({ period: PERIOD }),
      fn.metricErrors({ period: PERIOD }),
      fn.metricThrottles({ period: PERIOD }),
    ];
  }

  functionDuration(statistic: string): cloudwatch.Metric {
    return this.#relay.function.metricDuration({
      period: PERIOD,
      statistic,
      label: `Duration ${statistic}`,
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

/** The dashboard, row by row. */
export function relayWidgets(
  metrics: RelayMetrics,
  relay: OutboxRelay,
  alarms: readonly cloudwatch.IAlarm[],
  thresholds: { readonly iteratorAgeMs: number; readonly pendingAgeMs: number },
): cloudwatch.IWidget[][] {
  const timeoutMs = relay.timeout.toMilliseconds();
  return [
    [
      new cloudwatch.TextWidget({
        markdown: `# Outbox relay\nPublishes the consumers' appended events to ${relay.topics.map((t) => `\`${t}\``).join(', ')}. Events come from the relay (namespace ${RELAY_METRICS.namespace}, dimension ${RELAY_METRICS.dimension}); lag from Lambda's stream mapping. See docs/deploy.md#outbox-relay-alarms.`,
        width: 24,
        height: 2,
      }),
    ],
    [
      graph('Events (count)', [
        metrics.relay(RELAY_METRICS.eventsPublished, 'Sum'),
        metrics.relay(RELAY_METRICS.eventsQuarantined, 'Sum'),
        metrics.relay(RELAY_METRICS.publishFailures, 'Sum'),
      ]),
      graph('Oldest unpublished event (ms)', [metrics.relay(RELAY_METRICS.oldestPendingAgeMs, 'Maximum')], {
        leftAnnotations: [{ value: thresholds.pendingAgeMs, label: 'alarm threshold' }],
      }),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 8, height: 6 }),
    ],
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
      graph('Lambda: invocations, errors, throttles', metrics.functionHealth()),
      graph(
        'Lambda: duration against timeout (ms)',
        ['p50', 'p99', 'Maximum'].map((statistic) => metrics.functionDuration(statistic)),
        { leftAnnotations: [{ value: timeoutMs, label: 'timeout', color: '#d62728' }] },
      ),
      graph('DynamoDB outbox: throttles', metrics.outboxThrottles()),
    ],
  ];
}
