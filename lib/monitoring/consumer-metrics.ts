/**
 * Every metric a consumer's dashboard and alarms read, made in one place (as cdk-monitoring-constructs'
 * metric factories do): the handler's EMF outcomes and timings, the event source mapping's counts, and the
 * function's own metrics, all at one period.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import type { KafkaConsumer } from '../kafka-consumer.js';

/**
 * Event source mapping metrics, by `MetricsConfig` group. https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
 * `FilteredOutEventCount`: records the mapping's `filters` kept from the function (committed all the same).
 */
export const ESM_EVENT_COUNT_METRICS = [
  'PolledEventCount',
  'FilteredOutEventCount',
  'InvokedEventCount',
  'FailedInvokeEventCount',
  'DroppedEventCount',
  'OnFailureDestinationDeliveredEventCount',
  'CommittedEventCount',
] as const;
export const ESM_ERROR_COUNT_METRICS = [
  'PollingErrorCount',
  'InvokeErrorCount',
  'OnFailureDestinationDeliveryErrorCount',
  'CommitErrorCount',
] as const;
export const ESM_KAFKA_METRICS = ['MaxOffsetLag', 'SumOffsetLag'] as const;

/** The DynamoDB operations the consumer performs; SystemErrors and ThrottledRequests are per operation. */
export const WRITE_OPERATIONS = [
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

/** Every widget and alarm shows and evaluates 5-minute periods. */
export const PERIOD = Duration.minutes(5);

export class ConsumerMetrics {
  readonly #consumer: KafkaConsumer;

  constructor(consumer: KafkaConsumer) {
    this.#consumer = consumer;
  }

  /** A metric the handler emits as EMF (lambdas/core/metric-names.ts), dimension `service`. */
  handler(metricName: string, statistic = 'Sum', label?: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: this.#consumer.consumerName },
      statistic,
      period: PERIOD,
      ...(label === undefined ? {} : { label }),
    });
  }

  /** p50 and p99 of a handler timing. */
  handlerPercentiles(metricName: string): cloudwatch.IMetric[] {
    return [
      this.handler(metricName, 'p50', `${metricName} p50`),
      this.handler(metricName, 'p99', `${metricName} p99`),
    ];
  }

  /**
   * A metric of the event source mapping (opted in by MetricsConfig). The reference names no dimension:
   * EventSourceMappingUUID is assumed. https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
   */
  mapping(metricName: string, statistic = 'Sum'): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { EventSourceMappingUUID: this.#consumer.eventSourceMappingUuid },
      statistic,
      label: metricName.replace(/(Event)?Count$/, ''),
      period: PERIOD,
    });
  }

  /**
   * Lambda emits OffsetLag for every Kafka mapping, per function, without MetricsConfig.
   * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#performance-metrics
   */
  offsetLag(): cloudwatch.Metric {
    return this.#consumer.function.metric('OffsetLag', {
      statistic: 'Maximum',
      period: PERIOD,
      label: 'OffsetLag',
    });
  }

  functionErrors(): cloudwatch.Metric {
    return this.#consumer.function.metricErrors({ period: PERIOD, statistic: 'Sum' });
  }

  functionDuration(statistic: string, label?: string): cloudwatch.Metric {
    return this.#consumer.function.metricDuration({
      period: PERIOD,
      statistic,
      ...(label === undefined ? {} : { label }),
    });
  }

  /** Invocations, errors and throttles of the function. */
  functionHealth(): cloudwatch.IMetric[] {
    const fn = this.#consumer.function;
    return [
      fn.metricInvocations({ period: PERIOD }),
      fn.metricErrors({ period: PERIOD }),
      fn.metricThrottles({ period: PERIOD }),
    ];
  }

  concurrency(): cloudwatch.Metric {
    return this.#consumer.function.metric('ConcurrentExecutions', {
      statistic: 'Maximum',
      period: PERIOD,
      label: 'ConcurrentExecutions',
    });
  }

  tableThrottleEvents(table: dynamodb.ITable): { reads: cloudwatch.Metric; writes: cloudwatch.Metric } {
    return {
      reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
      writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
    };
  }
}
