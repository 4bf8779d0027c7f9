import { type App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import { RELAY_METRICS } from '../../lib/monitoring/relay-metric-names.js';
import { OutboxRelay } from '../../lib/outbox-relay.js';
import { OutboxTable } from '../../lib/outbox-table.js';
import { RelayMonitoring, type RelayMonitoringProps } from '../../lib/relay-monitoring.js';
import { runOperator } from '../../operator/operator-main.js';
import {
  dashboardMetrics,
  EXAMPLE_CLUSTER_ARN,
  logicalId,
  nagPacks,
  projectApp,
  type Resource,
  unacknowledgedFindings,
} from './support.js';

interface Built {
  readonly app: App;
  readonly template: Template;
  readonly relay: OutboxRelay;
  readonly monitoring: RelayMonitoring;
}

function build(overrides: Partial<Omit<RelayMonitoringProps, 'relay'>> = {}): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Relay');
  const relay = new OutboxRelay(stack, 'Relay', {
    outbox: new OutboxTable(stack, 'Outbox'),
    topics: ['payments'],
    cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: 'b-1.demo:9198,b-2.demo:9198' },
  });
  const monitoring = new RelayMonitoring(stack, 'Monitoring', { relay, ...overrides });
  Validations.of(app).addPlugins(...nagPacks());
  app.synth();
  return { app, template: Template.fromStack(stack), relay, monitoring };
}

/** The alarms by the id they were made with (their logical id's prefix). */
function alarmsById(template: Template): Record<string, Resource> {
  return Object.fromEntries(
    Object.entries(template.findResources('AWS::CloudWatch::Alarm')).map(([id, alarm]) => [
      id.replace(/^Monitoring/, '').replace(/[0-9A-F]{8}$/, ''),
      alarm as Resource,
    ]),
  );
}

describe('RelayMonitoring', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ alarmEmail: 'oncall@example.com' });
  }, 120_000);

  it('has the six relay alarms, each notifying the topic on ALARM and OK', () => {
    const alarms = alarmsById(built.template);
    expect(Object.keys(alarms).sort()).toEqual(
      [
        'RelayIteratorAge',
        'RelayPendingAge',
        'RelayFunctionErrors',
        'RelayQuarantined',
        'RelayPublishFailures',
        'RelayFailedBatches',
      ].sort(),
    );
    expect(built.monitoring.alarms.iteratorAge).toBeDefined();
    expect(built.monitoring.alarms.failedBatches).toBeDefined();
    expect(built.monitoring.alarms.notRunning).toBeUndefined();
    const topic = { Ref: logicalId(built.monitoring.alarmTopic as sns.Topic) };
    for (const alarm of Object.values(alarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it('watches the stream iterator age, the function errors, the failure queue and the relay metrics with their statistics', () => {
    const alarms = alarmsById(built.template);
    const fn = { Ref: logicalId(built.relay.function) };
    expect(alarms.RelayIteratorAge?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: fn }],
      Threshold: 300_000,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    expect(alarms.RelayFunctionErrors?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Statistic: 'Sum',
      Dimensions: [{ Name: 'FunctionName', Value: fn }],
      Threshold: 1,
    });
    expect(alarms.RelayFailedBatches?.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(built.relay.failureQueue), 'QueueName'] } },
      ],
      Threshold: 1,
    });
    const relayDimension = [{ Name: 'service', Value: fn }];
    expect(alarms.RelayPendingAge?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'OldestPendingAgeMs',
      Statistic: 'Maximum',
      Dimensions: relayDimension,
      Threshold: 900_000,
    });
    expect(alarms.RelayQuarantined?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'EventsQuarantined',
      Statistic: 'Sum',
      Dimensions: relayDimension,
    });
    expect(alarms.RelayPublishFailures?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'PublishFailures',
      Statistic: 'Sum',
      Dimensions: relayDimension,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  it('names the relay metrics once, in the namespace the consumer uses', () => {
    expect(RELAY_METRICS).toEqual({
      namespace: METRICS_NAMESPACE,
      dimension: 'service',
      oldestPendingAgeMs: 'OldestPendingAgeMs',
      eventsQuarantined: 'EventsQuarantined',
      publishFailures: 'PublishFailures',
      eventsPublished: 'EventsPublished',
    });
  });

  it('draws every relay metric, the lag, the mapping, the function and the failure queue on one dashboard', () => {
    const drawn = dashboardMetrics(built.template);
    for (const name of ['EventsPublished', 'EventsQuarantined', 'PublishFailures']) {
      expect(drawn).toContain(`${METRICS_NAMESPACE}/${name}`);
    }
    expect(drawn).toContain(`${METRICS_NAMESPACE}/OldestPendingAgeMs`);
    for (const name of ['IteratorAge', 'Errors', 'Invocations', 'Duration', 'FilteredOutEventCount']) {
      expect(drawn).toContain(`AWS/Lambda/${name}`);
    }
    expect(drawn).toContain('AWS/SQS/ApproximateNumberOfMessagesVisible');
  });

  it('keeps every alarm description within CloudWatch limit and says what to do first', () => {
    for (const alarm of Object.values(alarmsById(built.template))) {
      const description = JSON.stringify(alarm.Properties.AlarmDescription);
      expect(description.length).toBeLessThanOrEqual(1024);
      expect(description).toContain('First:');
    }
  });

  it('passes cdk-nag with nothing unacknowledged', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
  });

  it('names the msk-inbox outbox commands for quarantined and given-up events, each one the tool knows', async () => {
    const alarms = alarmsById(built.template);
    const text = (id: string) => rendered(alarms[id]?.Properties.AlarmDescription);
    const commands = ['RelayQuarantined', 'RelayFailedBatches'].flatMap((id) =>
      [...text(id).matchAll(/npx msk-inbox ([^.()]+)/g)].map(([, line]) => (line ?? '').trim().split(/\s+/)),
    );
    expect(commands.map((argv) => argv.slice(0, 2).join(' '))).toEqual([
      'outbox quarantined',
      'outbox republish',
      'outbox list',
      'outbox republish',
    ]);
    expect(text('RelayQuarantined')).toContain(`--outbox-table ${logicalId(built.relay.outbox.table)}`);
    const quiet = { print: () => undefined, note: () => undefined, ask: async () => undefined };
    for (const argv of commands) {
      const io = { ...quiet, nowMs: () => 0, user: () => 'test' };
      expect(await runOperator([...argv, '--help'], io), argv.join(' ')).toBe(0);
    }
  });
});

/** A description as CloudWatch shows it, each reference as the logical id (or pseudo parameter) it names. */
function rendered(description: unknown): string {
  if (typeof description === 'string') return description;
  const [separator, parts] = (description as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const reference = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      return (reference.Ref ?? reference['Fn::GetAtt']?.[0] ?? '').replace('AWS::', '');
    })
    .join(separator);
}

describe('RelayMonitoring with the consumers alarm topic and its own thresholds', () => {
  it('notifies that topic, creates none, and alarms at the thresholds given', () => {
    const app = projectApp({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'Relay');
    const topic = new sns.Topic(stack, 'ConsumerAlarms', { enforceSSL: true });
    const relay = new OutboxRelay(stack, 'Relay', {
      outbox: new OutboxTable(stack, 'Outbox'),
      topics: ['payments'],
      cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: 'b-1.demo:9198' },
    });
    new RelayMonitoring(stack, 'Monitoring', {
      relay,
      alarmTopic: topic,
      iteratorAgeThreshold: Duration.minutes(1),
      pendingAgeThreshold: Duration.minutes(2),
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    const alarms = alarmsById(template);
    expect(alarms.RelayIteratorAge?.Properties.Threshold).toBe(60_000);
    expect(alarms.RelayPendingAge?.Properties.Threshold).toBe(120_000);
    expect(alarms.RelayQuarantined?.Properties.AlarmActions).toEqual([{ Ref: logicalId(topic) }]);
  });

  it('refuses a threshold of zero and an email beside a topic, in one error', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Relay');
    const relay = new OutboxRelay(stack, 'Relay', {
      outbox: new OutboxTable(stack, 'Outbox'),
      topics: ['payments'],
      cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: 'b-1.demo:9198' },
    });
    expect(
      () =>
        new RelayMonitoring(stack, 'Monitoring', {
          relay,
          quarantinedThreshold: 0,
          alarmTopic: new sns.Topic(stack, 'Topic'),
          alarmEmail: 'oncall@example.com',
        }),
    ).toThrow(
      /quarantinedThreshold is 0: set a number above 0\n {2}- alarmEmail is given with alarmTopic: subscribe the address to your topic yourself, or drop alarmTopic/,
    );
  });
});
