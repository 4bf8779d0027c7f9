import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { BATCH_METRICS, EVENT_METRICS, OUTCOME_METRICS } from '../../lambdas/core/metric-names.js';
import { ConsumerMonitoring, type ConsumerMonitoringProps } from '../../lib/consumer-monitoring.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { KafkaConsumer } from '../../lib/kafka-consumer.js';
import {
  dashboardBody,
  dashboardMetrics,
  EXAMPLE_CLUSTER_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  projectApp,
  type Resource,
} from './support.js';

interface Built {
  readonly template: Template;
  readonly ids: { topic: string; fn: string; mapping: string; inbox: string; orders: string };
}

function build(overrides: Partial<Omit<ConsumerMonitoringProps, 'consumer'>> = {}): Built {
  const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Monitoring');
  const inbox = new InboxTable(stack, 'Inbox');
  const orders = new dynamodb.Table(stack, 'Orders', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
  });
  const consumer = new KafkaConsumer(stack, 'Consumer', {
    consumerName: 'order-consumer',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: 'order-consumer',
    inboxTable: inbox,
    entry: FIXTURE_ENTRY,
  });
  const monitoring = new ConsumerMonitoring(stack, 'Monitoring', {
    consumer,
    tables: { inbox: inbox.table, orders },
    alarmEmail: 'oncall@example.com',
    ...overrides,
  });
  const id = logicalId;
  return {
    template: Template.fromStack(stack),
    ids: {
      topic: logicalId(monitoring.alarmTopic),
      fn: id(consumer.function),
      mapping: id(consumer.eventSourceMapping),
      inbox: id(inbox.table),
      orders: id(orders),
    },
  };
}

function alarms(template: Template): Resource[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
}

function alarmOn(template: Template, metricName: string): Resource {
  const found = alarms(template).filter((alarm) =>
    JSON.stringify(alarm.Properties).includes(`"${metricName}"`),
  );
  if (found.length !== 1) {
    throw new Error(`expected one alarm on ${metricName}, found ${found.length}`);
  }
  return found[0] as Resource;
}

describe('ConsumerMonitoring', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  it('sends every alarm, and its recovery, to one TLS-only SNS topic with the email subscribed', () => {
    const topicRef = { Ref: built.ids.topic };
    const all = alarms(built.template);
    expect(all).toHaveLength(7);
    for (const alarm of all) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
      expect(JSON.stringify(alarm.Properties.AlarmDescription)).toMatch(/First: /);
    }
    expect(onlyResource(built.template, 'AWS::SNS::Subscription').Properties).toEqual({
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: topicRef,
    });
    const policy = JSON.stringify(onlyResource(built.template, 'AWS::SNS::TopicPolicy').Properties);
    expect(policy).toContain('"aws:SecureTransport":"false"');
  });

  it('alarms when the offset lag is above the threshold and still growing for 15 minutes', () => {
    const alarm = alarmOn(built.template, 'OffsetLag');
    expect(alarm.Properties).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.Properties.Metrics).toEqual([
      {
        Id: 'expr_1',
        Label: 'Offset lag above threshold and growing',
        Expression: 'IF(lag > 1000 AND RATE(lag) > 0, 1, 0)',
        ReturnData: true,
      },
      {
        Id: 'lag',
        Label: 'OffsetLag',
        ReturnData: false,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/Lambda',
            MetricName: 'OffsetLag',
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: built.ids.fn } }],
          },
          Period: 300,
          Stat: 'Maximum',
        },
      },
    ]);
  });

  it('alarms on any record dropped or sent to the failure bucket', () => {
    const alarm = alarmOn(built.template, 'DroppedEventCount');
    const mappingDimension = [{ Name: 'EventSourceMappingUUID', Value: { Ref: built.ids.mapping } }];
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.Properties.Metrics).toEqual([
      expect.objectContaining({ Expression: 'FILL(dropped, 0) + FILL(delivered, 0)' }),
      {
        Id: 'dropped',
        Label: 'Dropped',
        ReturnData: false,
        MetricStat: {
          Metric: { Namespace: 'AWS/Lambda', MetricName: 'DroppedEventCount', Dimensions: mappingDimension },
          Period: 300,
          Stat: 'Sum',
        },
      },
      {
        Id: 'delivered',
        Label: 'OnFailureDestinationDelivered',
        ReturnData: false,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/Lambda',
            MetricName: 'OnFailureDestinationDeliveredEventCount',
            Dimensions: mappingDimension,
          },
          Period: 300,
          Stat: 'Sum',
        },
      },
    ]);
  });

  it('alarms on any quarantined record, read from the handler EMF metric', () => {
    expect(alarmOn(built.template, OUTCOME_METRICS.quarantined).Properties).toMatchObject({
      Namespace: 'MskInbox',
      MetricName: 'Quarantined',
      Dimensions: [{ Name: 'service', Value: 'order-consumer' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on function errors and on a maximum duration at 80% of the timeout', () => {
    const fnDimension = [{ Name: 'FunctionName', Value: { Ref: built.ids.fn } }];
    expect(alarmOn(built.template, 'Errors').Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: fnDimension,
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 1,
    });
    expect(alarmOn(built.template, 'Duration').Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: fnDimension,
      Statistic: 'Maximum',
      Threshold: 48_000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms on DynamoDB throttling of each table in 2 of 3 windows', () => {
    const throttleAlarms = alarms(built.template).filter((alarm) =>
      JSON.stringify(alarm.Properties).includes('ThrottleEvents'),
    );
    expect(throttleAlarms).toHaveLength(2);
    for (const [index, tableId] of [built.ids.inbox, built.ids.orders].entries()) {
      const alarm = throttleAlarms[index] as Resource;
      expect(alarm.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
      expect(JSON.stringify(alarm.Properties.Metrics)).toContain(
        JSON.stringify({ Name: 'TableName', Value: { Ref: tableId } }),
      );
      expect(JSON.stringify(alarm.Properties.Metrics)).toContain('"WriteThrottleEvents"');
      expect(JSON.stringify(alarm.Properties.Metrics)).toContain('"ReadThrottleEvents"');
    }
  });

  it('draws a widget for every handler metric, lag metric, mapping count, Lambda and DynamoDB metric', () => {
    const drawn = dashboardMetrics(built.template);
    const expected = [
      ...[
        ...Object.values(OUTCOME_METRICS),
        ...Object.values(EVENT_METRICS),
        ...Object.values(BATCH_METRICS),
      ].map((name) => `MskInbox/${name}`),
      ...[
        'OffsetLag',
        'MaxOffsetLag',
        'SumOffsetLag',
        'PolledEventCount',
        'FilteredOutEventCount',
        'InvokedEventCount',
        'FailedInvokeEventCount',
        'DroppedEventCount',
        'OnFailureDestinationDeliveredEventCount',
        'CommittedEventCount',
        'PollingErrorCount',
        'InvokeErrorCount',
        'OnFailureDestinationDeliveryErrorCount',
        'CommitErrorCount',
      ].map((name) => `AWS/Lambda/${name}`),
      ...['Invocations', 'Errors', 'Throttles', 'Duration', 'ConcurrentExecutions'].map(
        (name) => `AWS/Lambda/${name}`,
      ),
      ...[
        'ReadThrottleEvents',
        'WriteThrottleEvents',
        'ThrottledRequests',
        'SystemErrors',
        'ConsumedReadCapacityUnits',
        'ConsumedWriteCapacityUnits',
      ].map((name) => `AWS/DynamoDB/${name}`),
    ];
    expect([...expected].filter((name) => !drawn.has(name))).toEqual([]);
  });

  it('shows batch duration and record latency at p50 and p99, and duration against the timeout', () => {
    const widgets = dashboardBody(built.template).widgets;
    const byTitle = (title: string) => widgets.find((widget) => widget.properties.title === title);
    for (const title of ['Batch duration (ms)', 'Record latency, Kafka timestamp to batch end (ms)']) {
      const stats = (byTitle(title)?.properties.metrics ?? []).map(
        (metric) => (metric.at(-1) as { stat: string }).stat,
      );
      expect(stats).toEqual(['p50', 'p99']);
    }
    const duration = byTitle('Lambda: duration against timeout (ms)');
    expect(JSON.stringify(duration?.properties.annotations)).toContain('"value":60000');
  });
});

describe('ConsumerMonitoring props', () => {
  it('fails synth on a duration ratio above 1', () => {
    expect(() => build({ durationAlarmRatio: 1.5 })).toThrow(
      /durationAlarmRatio is 1.5: set a fraction of the timeout/,
    );
  });

  it('fails synth on an alarm email that is not an address', () => {
    expect(() => build({ alarmEmail: 'oncall' })).toThrow(/alarmEmail "oncall" is not an email address/);
  });

  it('fails synth with no table to watch', () => {
    expect(() => build({ tables: {} })).toThrow(/tables is empty/);
  });

  it('fails synth on a threshold of zero', () => {
    expect(() => build({ offsetLagThreshold: 0 })).toThrow(/offsetLagThreshold is 0: set a number above 0/);
  });
});
