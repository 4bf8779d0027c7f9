import { type App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import { PostgresOutboxRelay } from '../../lib/postgres-outbox-relay.js';
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
  readonly relay: PostgresOutboxRelay;
  readonly monitoring: RelayMonitoring;
}

/** A Postgres relay behind an imported RDS Proxy, and its monitoring. */
function build(overrides: Partial<Omit<RelayMonitoringProps, 'relay'>> = {}): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Payments', { env: { account: '123456789012', region: 'us-east-1' } });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    vpcCidrBlock: '10.0.0.0/16',
    availabilityZones: ['us-east-1a'],
    privateSubnetIds: ['subnet-0private0000000a'],
    privateSubnetRouteTableIds: ['rtb-0private0000000a'],
  });
  const securityGroups = [ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', 'sg-0database00000000')];
  const proxy = rds.DatabaseProxy.fromDatabaseProxyAttributes(stack, 'Proxy', {
    dbProxyName: 'payments-proxy',
    dbProxyArn: 'arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123456789abcdef0',
    endpoint: 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com',
    securityGroups,
  });
  const relay = new PostgresOutboxRelay(stack, 'Relay', {
    postgres: {
      database: { kind: 'proxy', proxy, securityGroups },
      vpc,
      databaseName: 'payments',
      auth: { iam: { user: 'outbox_relay' } },
      schema: 'payments_inbox',
    },
    topics: ['payments'],
    cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: 'b-1.demo:9098,b-2.demo:9098' },
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

describe('RelayMonitoring of a PostgresOutboxRelay', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ alarmEmail: 'oncall@example.com' });
  }, 120_000);

  it('has the four alarms of every relay and RelayNotRunning, none of the stream, each notifying the topic', () => {
    const alarms = alarmsById(built.template);
    expect(Object.keys(alarms).sort()).toEqual(
      [
        'RelayPendingAge',
        'RelayFunctionErrors',
        'RelayQuarantined',
        'RelayPublishFailures',
        'RelayNotRunning',
      ].sort(),
    );
    expect(built.monitoring.alarms.iteratorAge).toBeUndefined();
    expect(built.monitoring.alarms.failedBatches).toBeUndefined();
    expect(built.monitoring.alarms.notRunning).toBeDefined();
    const topic = { Ref: logicalId(built.monitoring.alarmTopic as sns.Topic) };
    for (const [id, alarm] of Object.entries(alarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
      expect(alarm.Properties.TreatMissingData, id).toBe(
        id === 'RelayNotRunning' ? 'breaching' : 'notBreaching',
      );
    }
  });

  it('alarms when the function was not invoked in 5 minutes, missing data counting as not running', () => {
    const notRunning = alarmsById(built.template).RelayNotRunning;
    expect(notRunning?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Statistic: 'Sum',
      Period: 300,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(built.relay.function) } }],
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
    });
    expect(rendered(notRunning?.Properties.AlarmDescription)).toContain(
      `the rule ${logicalId(built.relay.scheduleRule)} is enabled`,
    );
  });

  it("reads the relay's EMF metrics by its function's name", () => {
    const alarms = alarmsById(built.template);
    const relayDimension = [{ Name: 'service', Value: { Ref: logicalId(built.relay.function) } }];
    expect(alarms.RelayPendingAge?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'OldestPendingAgeMs',
      Statistic: 'Maximum',
      Dimensions: relayDimension,
      Threshold: 900_000,
    });
    expect(alarms.RelayQuarantined?.Properties).toMatchObject({
      MetricName: 'EventsQuarantined',
      Dimensions: relayDimension,
    });
  });

  it("draws the relay's metrics, its function's and the proxy's, and nothing of a stream", () => {
    const drawn = dashboardMetrics(built.template);
    for (const name of ['EventsPublished', 'EventsQuarantined', 'PublishFailures', 'OldestPendingAgeMs']) {
      expect(drawn).toContain(`${METRICS_NAMESPACE}/${name}`);
    }
    for (const name of ['Invocations', 'Errors', 'Throttles', 'Duration']) {
      expect(drawn).toContain(`AWS/Lambda/${name}`);
    }
    expect(drawn).toContain('AWS/RDS/ClientConnections');
    for (const stream of ['AWS/Lambda/IteratorAge', 'AWS/Lambda/FilteredOutEventCount']) {
      expect(drawn).not.toContain(stream);
    }
    expect(
      [...drawn].filter((name) => name.startsWith('AWS/SQS/') || name.startsWith('AWS/DynamoDB/')),
    ).toEqual([]);
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

  it("names the msk-inbox outbox commands for quarantined events on the stack's Postgres outputs, each one the tool knows", async () => {
    const text = rendered(alarmsById(built.template).RelayQuarantined?.Properties.AlarmDescription);
    const commands = [...text.matchAll(/npx msk-inbox ([^.()]+)/g)].map(([, line]) =>
      (line ?? '').trim().split(/\s+/),
    );
    expect(commands.map((argv) => argv.slice(0, 3).join(' '))).toEqual([
      'outbox quarantined --stack',
      'outbox republish ID',
    ]);
    expect(text).toContain('--postgres URL --schema payments_inbox');
    const quiet = { print: () => undefined, note: () => undefined, ask: async () => undefined };
    for (const argv of commands) {
      const io = { ...quiet, nowMs: () => 0, user: () => 'test' };
      expect(await runOperator([...argv, '--help'], io), argv.join(' ')).toBe(0);
    }
  });

  it('refuses iteratorAgeThreshold, which a relay without a stream has no use for', () => {
    expect(() => build({ iteratorAgeThreshold: Duration.minutes(1) })).toThrow(
      /iteratorAgeThreshold is given for a PostgresOutboxRelay, which reads no stream: remove it/,
    );
  });
});
