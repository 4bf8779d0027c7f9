/**
 * The dashboard's widgets, one named function each, all reading metrics from ConsumerMetrics: the
 * dashboard's layout (consumer-monitoring.ts) reads as a list of what it shows.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import {
  BATCH_METRICS,
  EVENT_METRICS,
  METRICS_NAMESPACE,
  OUTCOME_METRICS,
} from '../../lambdas/core/metric-names.js';
import {
  type ConsumerMetrics,
  ESM_ERROR_COUNT_METRICS,
  ESM_EVENT_COUNT_METRICS,
  ESM_KAFKA_METRICS,
  PERIOD,
  WRITE_OPERATIONS,
} from './consumer-metrics.js';

function graph(
  title: string,
  left: cloudwatch.IMetric[],
  options: Partial<cloudwatch.GraphWidgetProps> = {},
) {
  return new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, period: PERIOD, ...options });
}

function timeoutLine(timeoutMs: number): cloudwatch.HorizontalAnnotation {
  return { value: timeoutMs, label: 'timeout', color: '#d62728' };
}

export function titleWidget(consumerName: string): cloudwatch.IWidget {
  return new cloudwatch.TextWidget({
    markdown: `# Kafka consumer \`${consumerName}\`\nOutcomes come from the handler (namespace ${METRICS_NAMESPACE}); lag and event counts from the event source mapping; health from Lambda and the inbox's store (DynamoDB or Postgres). See docs/deploy.md for what each alarm means.`,
    width: 24,
    height: 2,
  });
}

export function recordOutcomesWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph(
    'Record outcomes (count)',
    Object.values(OUTCOME_METRICS).map((name) => metrics.handler(name)),
  );
}

export function inboxEventsWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  // Every batch metric that is not a timing or the record count is a count of batches.
  const batchTimings: string[] = [BATCH_METRICS.duration, BATCH_METRICS.recordLatency, BATCH_METRICS.records];
  const batchCounts = Object.values(BATCH_METRICS).filter((name) => !batchTimings.includes(name));
  return graph(
    'Inbox events and batches (count)',
    [...Object.values(EVENT_METRICS), ...batchCounts].map((name) => metrics.handler(name)),
    { right: [metrics.handler(BATCH_METRICS.records)] },
  );
}

export function alarmStatusWidget(alarms: cloudwatch.IAlarm[]): cloudwatch.IWidget {
  return new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 8, height: 6 });
}

export function batchDurationWidget(metrics: ConsumerMetrics, timeoutMs: number): cloudwatch.IWidget {
  return graph('Batch duration (ms)', metrics.handlerPercentiles(BATCH_METRICS.duration), {
    leftAnnotations: [timeoutLine(timeoutMs)],
  });
}

export function recordLatencyWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph(
    'Record latency, Kafka timestamp to batch end (ms)',
    metrics.handlerPercentiles(BATCH_METRICS.recordLatency),
  );
}

export function offsetLagWidget(metrics: ConsumerMetrics, alarmThreshold: number): cloudwatch.IWidget {
  return graph(
    'Offset lag (records)',
    [metrics.offsetLag(), ...ESM_KAFKA_METRICS.map((name) => metrics.mapping(name, 'Maximum'))],
    { leftAnnotations: [{ value: alarmThreshold, label: 'alarm threshold' }] },
  );
}

export function mappingEventsWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph(
    'Event source mapping: events',
    ESM_EVENT_COUNT_METRICS.map((name) => metrics.mapping(name)),
  );
}

export function mappingErrorsWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph(
    'Event source mapping: errors',
    ESM_ERROR_COUNT_METRICS.map((name) => metrics.mapping(name)),
  );
}

export function lambdaHealthWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph('Lambda: invocations, errors, throttles', metrics.functionHealth());
}

export function lambdaDurationWidget(
  metrics: ConsumerMetrics,
  timeoutMs: number,
  alarmThresholdMs: number,
): cloudwatch.IWidget {
  return graph(
    'Lambda: duration against timeout (ms)',
    ['p50', 'p99', 'Maximum'].map((statistic) =>
      metrics.functionDuration(statistic, `Duration ${statistic}`),
    ),
    { leftAnnotations: [timeoutLine(timeoutMs), { value: alarmThresholdMs, label: 'alarm threshold' }] },
  );
}

export function lambdaConcurrencyWidget(metrics: ConsumerMetrics): cloudwatch.IWidget {
  return graph('Lambda: concurrency', [metrics.concurrency()]);
}

/** Throttles, system errors and consumed capacity of one table the consumer writes. */
export function tableWidgets(
  metrics: ConsumerMetrics,
  label: string,
  table: dynamodb.ITable,
): cloudwatch.IWidget[] {
  const throttles = metrics.tableThrottleEvents(table);
  return [
    graph(`DynamoDB ${label}: throttles`, [
      throttles.reads,
      throttles.writes,
      table.metricThrottledRequestsForOperations({ operations: WRITE_OPERATIONS, period: PERIOD }),
    ]),
    graph(`DynamoDB ${label}: system errors`, [
      table.metricSystemErrorsForOperations({ operations: WRITE_OPERATIONS, period: PERIOD }),
    ]),
    graph(`DynamoDB ${label}: consumed capacity`, [
      table.metricConsumedWriteCapacityUnits({ period: PERIOD }),
      table.metricConsumedReadCapacityUnits({ period: PERIOD }),
    ]),
  ];
}
