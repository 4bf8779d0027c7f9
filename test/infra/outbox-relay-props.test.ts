import { CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { describe, expect, it } from 'vitest';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { OutboxRelay } from '../../lib/outbox-relay.js';
import { OutboxTable } from '../../lib/outbox-table.js';
import { defined, EXAMPLE_CLUSTER_ARN, policyStatements, projectApp } from './support.js';

const BROKERS = 'b-1.demo.kafka.us-east-1.amazonaws.com:9098,b-2.demo.kafka.us-east-1.amazonaws.com:9098';

describe('OutboxRelay on a cluster whose ARN is known at deploy time only', () => {
  it('writes each topic ARN built from the cluster ARN in CloudFormation', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Relay');
    const clusterArn = new CfnParameter(stack, 'ClusterArn').valueAsString;
    new OutboxRelay(stack, 'Relay', {
      outbox: new OutboxTable(stack, 'Outbox'),
      topics: ['payments'],
      cluster: { clusterArn, bootstrapServers: new CfnParameter(stack, 'Brokers').valueAsString },
    });
    const writes = policyStatements(Template.fromStack(stack)).filter((statement) =>
      JSON.stringify(statement.Action).includes('kafka-cluster:WriteData'),
    );
    const [write] = writes;
    expect(writes).toHaveLength(1);
    const [separator, pieces] = (
      defined(write, 'the WriteData statement').Resource as { 'Fn::Join': [string, unknown[]] }
    )['Fn::Join'];
    expect(separator).toBe('');
    expect(pieces[0]).toBe('arn:');
    expect(pieces).toContain(':kafka:');
    expect(pieces).toContain(':topic/');
    expect(pieces.at(-1)).toBe('/payments');
    expect(JSON.stringify(pieces)).toContain('{"Ref":"ClusterArn"}');
    expect(JSON.stringify(pieces)).not.toContain('*');
  });
});

describe('OutboxRelay props', () => {
  it('fails synth listing every problem, each saying what to change', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a'],
      privateSubnetIds: ['subnet-0private0000000a'],
    });
    const refused = (() => {
      try {
        new OutboxRelay(stack, 'Relay', {
          outbox: new OutboxTable(stack, 'Outbox'),
          topics: ['payments', 'orders.*', 'payments'],
          cluster: {
            clusterArn: 'arn:aws:kafka:us-east-1:123456789012:topic/demo/uuid/payments',
            bootstrapServers: 'b-1.demo:9098;b-2.demo',
            securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Brokers', 'sg-0brokers000000000'),
            vpcSubnets: vpc.selectSubnets(),
          },
          retryAttempts: -1,
          maxRecordAge: Duration.hours(24),
          parallelizationFactor: 11,
        });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(InvalidPropsError);
    expect((refused as InvalidPropsError).problems).toEqual([
      'cluster.clusterArn "arn:aws:kafka:us-east-1:123456789012:topic/demo/uuid/payments" is not an MSK cluster ARN (arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>)',
      'cluster.bootstrapServers "b-1.demo:9098;b-2.demo" is not host:port,host:port: give the cluster\'s IAM bootstrap brokers',
      "cluster.securityGroup is given without cluster.vpc: give the brokers' VPC too",
      "cluster.vpcSubnets is given without cluster.vpc: give the brokers' VPC too",
      'topics has "orders.*", not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ - (no wildcards)',
      'topics lists payments more than once',
      'parallelizationFactor is 11: set a whole number from 1 to 10',
      'retryAttempts is -1: set a whole number from 0 to 10000',
      'maxRecordAge is 86400s: set whole seconds from 60 to 82800 (23 hours), so a record reaches the failure queue before the stream drops it at 24 hours',
    ]);
  });

  it('fails synth without topics', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    expect(
      () =>
        new OutboxRelay(stack, 'Relay', {
          outbox: new OutboxTable(stack, 'Outbox'),
          topics: [],
          cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: BROKERS },
        }),
    ).toThrow(/topics is empty: list the topics the effects emit to/);
  });
});
