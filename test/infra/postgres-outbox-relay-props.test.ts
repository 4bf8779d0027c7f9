import { Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import { describe, expect, it } from 'vitest';
import { ROUND_START_RESERVE_MS } from '../../lambdas/postgres/outbox/relay-loop.js';
import { POSTGRES_SETTINGS } from '../../lambdas/postgres/postgres-settings.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { PostgresOutboxRelay, type PostgresOutboxRelayProps } from '../../lib/postgres-outbox-relay.js';
import { RELAY_RESERVE } from '../../lib/postgres-outbox-relay-props.js';
import { EXAMPLE_CLUSTER_ARN, projectApp } from './support.js';

const BROKERS = 'b-1.demo.kafka.us-east-1.amazonaws.com:9098';

/** The problems synth names for these props (none: the relay was made). */
function problemsOf(
  overrides: (stack: Stack, defaults: PostgresOutboxRelayProps) => Partial<PostgresOutboxRelayProps>,
): readonly string[] {
  const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Relay');
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    vpcCidrBlock: '10.0.0.0/16',
    availabilityZones: ['us-east-1a'],
    privateSubnetIds: ['subnet-0private0000000a'],
  });
  const securityGroups = [ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', 'sg-0database00000000')];
  const proxy = rds.DatabaseProxy.fromDatabaseProxyAttributes(stack, 'Proxy', {
    dbProxyName: 'payments-proxy',
    dbProxyArn: 'arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123456789abcdef0',
    endpoint: 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com',
    securityGroups,
  });
  const defaults: PostgresOutboxRelayProps = {
    postgres: {
      database: { kind: 'proxy', proxy, securityGroups },
      vpc,
      databaseName: 'payments',
      auth: { iam: { user: 'outbox_relay' } },
    },
    topics: ['payments'],
    cluster: { clusterArn: EXAMPLE_CLUSTER_ARN, bootstrapServers: BROKERS },
  };
  try {
    new PostgresOutboxRelay(stack, 'Relay', { ...defaults, ...overrides(stack, defaults) });
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  return [];
}

const otherVpc = (stack: Stack, id = 'OtherVpc', vpcId = 'vpc-0fedcba9876543210') =>
  ec2.Vpc.fromVpcAttributes(stack, id, { vpcId, availabilityZones: ['us-east-1a'] });

describe('PostgresOutboxRelay props', () => {
  it('fails synth listing every problem, each saying what to change', () => {
    const problems = problemsOf((stack, defaults) => {
      const vpc = otherVpc(stack);
      return {
        postgres: { ...defaults.postgres, schema: 'Outbox' },
        topics: ['payments', 'orders.*', 'payments'],
        cluster: {
          clusterArn: 'arn:aws:kafka:us-east-1:123456789012:topic/demo/uuid/payments',
          bootstrapServers: 'b-1.demo:9098;b-2.demo',
          vpc,
          vpcSubnets: { availabilityZones: ['us-east-1a'] },
        },
        schedule: Duration.seconds(30),
        memorySize: 64,
        wake: 'push' as 'poll',
        pollInterval: Duration.millis(10),
      };
    });
    expect(problems).toEqual([
      `postgres.schema "Outbox" ${POSTGRES_SETTINGS.schema.patternHint}`,
      'cluster.clusterArn "arn:aws:kafka:us-east-1:123456789012:topic/demo/uuid/payments" is not an MSK cluster ARN (arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>)',
      'cluster.bootstrapServers "b-1.demo:9098;b-2.demo" is not host:port,host:port: give the cluster\'s IAM bootstrap brokers',
      "cluster.vpc is not postgres.vpc: the relay runs in the database's VPC; drop cluster.vpc (the brokers must be reachable from postgres.vpc)",
      'cluster.vpcSubnets is given: the relay runs in postgres.vpcSubnets; set the subnets there',
      'topics has "orders.*", not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ - (no wildcards)',
      'topics lists payments more than once',
      "schedule is 30s: set whole minutes, at least 1 (EventBridge's rate expressions go by the minute)",
      'memorySize (MB) is 64: set a whole number from 128 to 10240',
      'wake "push" must be one of: notify, poll',
      'pollInterval is 10 ms: set whole milliseconds from 50 to 60000',
    ]);
  });

  it('refuses a timeout that does not outlast the schedule by the relay reserve, or that Lambda would refuse', () => {
    const notLonger = (timeout: number, schedule: number) =>
      `timeout (${timeout}s) is not longer than schedule (${schedule}s) and the 20s the relay keeps in reserve: set more than ${schedule + 20}s, so the next invocation starts before this one returns and a relay is always running`;
    expect(problemsOf(() => ({ timeout: Duration.minutes(1) }))).toEqual([notLonger(60, 60)]);
    expect(problemsOf(() => ({ timeout: Duration.seconds(80) }))).toEqual([notLonger(80, 60)]);
    expect(problemsOf(() => ({ timeout: Duration.seconds(81) }))).toEqual([]);
    expect(problemsOf(() => ({ schedule: Duration.minutes(15), timeout: Duration.minutes(15) }))).toEqual([
      notLonger(900, 900),
    ]);
    expect(problemsOf(() => ({ timeout: Duration.minutes(16) }))).toEqual([
      'timeout is 960s: Lambda allows whole seconds from 1 to 900',
    ]);
  });

  it("keeps the relay's reserve as the relay loop does", () => {
    expect(RELAY_RESERVE.toMilliseconds()).toBe(ROUND_START_RESERVE_MS);
  });

  it('fails synth without topics', () => {
    expect(problemsOf(() => ({ topics: [] }))).toEqual([
      'topics is empty: list the topics the effects emit to (the relay may write to those only)',
    ]);
  });

  it("takes a cluster.vpc that is the database's, whichever object carries it, and refuses another Vpc of the app", () => {
    expect(
      problemsOf((stack) => ({
        cluster: {
          clusterArn: EXAMPLE_CLUSTER_ARN,
          bootstrapServers: BROKERS,
          vpc: otherVpc(stack, 'SameVpc', 'vpc-0123456789abcdef0'),
        },
      })),
    ).toEqual([]);
    expect(
      problemsOf((stack) => ({
        cluster: {
          clusterArn: EXAMPLE_CLUSTER_ARN,
          bootstrapServers: BROKERS,
          vpc: new ec2.Vpc(stack, 'Brokers'),
        },
      })),
    ).toEqual([
      "cluster.vpc is not postgres.vpc: the relay runs in the database's VPC; drop cluster.vpc (the brokers must be reachable from postgres.vpc)",
    ]);
  });
});
