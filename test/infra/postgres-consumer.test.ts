import { type App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELETE_EXPIRED_ROWS_EVENT } from '../../lambdas/core/store-choice.js';
import { POSTGRES_SETTINGS } from '../../lambdas/postgres/postgres-settings.js';
import { POSTGRES_STACK_OUTPUT_KEYS } from '../../lambdas/postgres/stack-outputs.js';
import { ConsumerMonitoring } from '../../lib/consumer-monitoring.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps, type PostgresInboxProps } from '../../lib/kafka-consumer.js';
import { addOperatorOutputs } from '../../lib/operator-outputs.js';
import { OperatorPolicy } from '../../lib/operator-policy.js';
import { FUNCTION_VPC_ACTIONS, LAMBDA_CA_BUNDLE } from '../../lib/postgres-database.js';
import {
  acknowledgements,
  allFindings,
  allowedPairs,
  dashboardMetrics,
  EXAMPLE_CLUSTER_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  policyStatements,
  projectApp,
  type Resource,
  unacknowledgedFindings,
} from './support.js';

const ENV = { account: '123456789012', region: 'us-east-1' };
const PROXY_ARN = 'arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123456789abcdef0';
const CLUSTER_RESOURCE_ID = 'cluster-ABCDEFGHIJKLMNOPQRSTUVWXY0';
const INSTANCE_RESOURCE_ID = 'db-ABCDEFGHIJKLMNOPQRSTUVWXY0';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:payments-db-AbCdEf';
const DATABASE_SG = 'sg-0database00000000';
const env = POSTGRES_SETTINGS;

type DatabaseKind = 'proxy' | 'cluster' | 'instance';

interface Built {
  readonly app: App;
  readonly stack: Stack;
  readonly template: Template;
  readonly consumer: KafkaConsumer;
  readonly databaseSecurityGroup: ec2.ISecurityGroup;
}

/** A team's stack: its existing VPC and database, imported, and a consumer whose inbox is in that database. */
function build(
  kind: DatabaseKind,
  postgres: Partial<PostgresInboxProps> | ((stack: Stack) => Partial<PostgresInboxProps>) = {},
  overrides: Partial<KafkaConsumerProps> = {},
  beforeSynth: (stack: Stack, consumer: KafkaConsumer) => void = () => undefined,
): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Payments', { env: ENV });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    availabilityZones: ['us-east-1a', 'us-east-1b'],
    privateSubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
    privateSubnetRouteTableIds: ['rtb-0private0000000a', 'rtb-0private0000000b'],
  });
  const databaseSecurityGroup = ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', DATABASE_SG);
  const securityGroups = [databaseSecurityGroup];
  const database: PostgresInboxProps['database'] =
    kind === 'proxy'
      ? {
          kind,
          proxy: rds.DatabaseProxy.fromDatabaseProxyAttributes(stack, 'Proxy', {
            dbProxyName: 'payments-proxy',
            dbProxyArn: PROXY_ARN,
            endpoint: 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com',
            securityGroups,
          }),
          securityGroups,
        }
      : kind === 'cluster'
        ? {
            kind,
            cluster: rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Cluster', {
              clusterIdentifier: 'payments',
              clusterResourceIdentifier: CLUSTER_RESOURCE_ID,
              clusterEndpointAddress: 'payments.cluster-abcdefghijkl.us-east-1.rds.amazonaws.com',
              port: 5432,
              securityGroups,
            }),
          }
        : {
            kind,
            instance: rds.DatabaseInstance.fromDatabaseInstanceAttributes(stack, 'Instance', {
              instanceIdentifier: 'payments',
              instanceResourceId: INSTANCE_RESOURCE_ID,
              instanceEndpointAddress: 'payments.abcdefghijkl.us-east-1.rds.amazonaws.com',
              port: 5432,
              securityGroups,
            }),
          };
  const consumer = new KafkaConsumer(stack, 'Consumer', {
    consumerName: 'payments',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'payments',
    consumerGroupId: 'payments',
    entry: FIXTURE_ENTRY,
    postgres: {
      database,
      vpc,
      databaseName: 'payments',
      auth: { iam: { user: 'payments_consumer' } },
      ...(typeof postgres === 'function' ? postgres(stack) : postgres),
    },
    ...overrides,
  });
  beforeSynth(stack, consumer);
  return { app, stack, template: Template.fromStack(stack), consumer, databaseSecurityGroup };
}

function variables(template: Template): Record<string, unknown> {
  const fn = onlyResource(template, 'AWS::Lambda::Function');
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

const connectStatements = (template: Template) =>
  policyStatements(template).filter((statement) => [statement.Action].flat().includes('rds-db:connect'));

describe('KafkaConsumer with a Postgres inbox behind an RDS Proxy, IAM auth (defaults)', () => {
  let built: Built;
  beforeAll(() => {
    built = build('proxy');
  });

  it('places the function in the VPC, private subnets, with a security group of its own', () => {
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    const ownGroup = logicalId(built.consumer.postgres?.securityGroup ?? built.stack);
    expect(fn.Properties.VpcConfig).toEqual({
      SubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
      SecurityGroupIds: [{ 'Fn::GetAtt': [ownGroup, 'GroupId'] }],
    });
  });

  it("lets the function out to the proxy's security group on 5432 only, and the proxy's group let it in", () => {
    const ownGroup = logicalId(built.consumer.postgres?.securityGroup ?? built.stack);
    const group = onlyResource(built.template, 'AWS::EC2::SecurityGroup');
    // allowAllOutbound: false leaves CDK's placeholder rule only until a real one is added.
    expect(group.Properties.SecurityGroupEgress).toBeUndefined();
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupEgress').Properties).toMatchObject({
      GroupId: { 'Fn::GetAtt': [ownGroup, 'GroupId'] },
      IpProtocol: 'tcp',
      FromPort: 5432,
      ToPort: 5432,
      DestinationSecurityGroupId: DATABASE_SG,
    });
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupIngress').Properties).toMatchObject({
      GroupId: DATABASE_SG,
      IpProtocol: 'tcp',
      FromPort: 5432,
      ToPort: 5432,
      SourceSecurityGroupId: { 'Fn::GetAtt': [ownGroup, 'GroupId'] },
    });
  });

  it('grants exactly rds-db:connect as the user on the proxy resource id', () => {
    expect(allowedPairs(connectStatements(built.template))).toEqual([
      'Allow rds-db:connect on "arn:aws:rds-db:us-east-1:123456789012:dbuser:prx-0123456789abcdef0/payments_consumer"',
    ]);
  });

  it('sets the POSTGRES_* variables, the RDS CA bundle for verify-full, and no INBOX_TABLE_NAME', () => {
    const vars = variables(built.template);
    expect(vars).toMatchObject({
      [env.host.env]: 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com',
      [env.port.env]: '5432',
      [env.database.env]: 'payments',
      [env.auth.env]: 'iam',
      [env.user.env]: 'payments_consumer',
      [env.tls.env]: 'verify-full',
      [env.schema.env]: 'msk_inbox',
      NODE_EXTRA_CA_CERTS: LAMBDA_CA_BUNDLE,
      CONSUMER_NAME: 'payments',
    });
    expect(Object.keys(vars)).not.toContain('INBOX_TABLE_NAME');
    expect(Object.keys(vars)).not.toContain(env.secretArn.env);
  });

  it('sends the function DELETE_EXPIRED_ROWS_EVENT every hour', () => {
    const rule = onlyResource(built.template, 'AWS::Events::Rule');
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 hour)');
    const [target] = rule.Properties.Targets as { Arn: unknown; Input: string }[];
    expect(target?.Arn).toEqual({ 'Fn::GetAtt': [logicalId(built.consumer.function), 'Arn'] });
    expect(JSON.parse(target?.Input ?? 'null')).toEqual(DELETE_EXPIRED_ROWS_EVENT);
    expect(onlyResource(built.template, 'AWS::Lambda::Permission').Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
    });
  });

  it('allows no DynamoDB action, and the VPC actions a function in a VPC needs', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs.filter((pair) => pair.includes('dynamodb:'))).toEqual([]);
    for (const action of FUNCTION_VPC_ACTIONS) {
      expect(pairs).toContain(`Allow ${action} on "*"`);
    }
  });

  it('passes cdk-nag, acknowledging only findings that exist', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
    const findings = allFindings(built.app).map((finding) => `${finding.rule} ${finding.path}`);
    for (const ack of acknowledgements(built.app)) {
      expect(findings.some((finding) => finding.startsWith(ack.rule))).toBe(true);
    }
  });
});

const withSecret = (stack: Stack): Partial<PostgresInboxProps> => ({
  auth: { secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'DatabaseSecret', SECRET_ARN) },
});

describe('KafkaConsumer with a Postgres inbox on an Aurora cluster, secret auth', () => {
  let built: Built;
  beforeAll(() => {
    built = build('cluster', withSecret);
  });

  it('grants read on that secret only, and no rds-db:connect', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs.filter((pair) => pair.includes('secretsmanager:'))).toEqual([
      `Allow secretsmanager:DescribeSecret on "${SECRET_ARN}"`,
      `Allow secretsmanager:GetSecretValue on "${SECRET_ARN}"`,
    ]);
    expect(connectStatements(built.template)).toEqual([]);
    expect(pairs.filter((pair) => pair.includes('dynamodb:'))).toEqual([]);
  });

  it("sets the cluster's endpoint, secret auth with its ARN, and no user", () => {
    const vars = variables(built.template);
    expect(vars).toMatchObject({
      [env.host.env]: 'payments.cluster-abcdefghijkl.us-east-1.rds.amazonaws.com',
      [env.port.env]: '5432',
      [env.auth.env]: 'secret',
      [env.secretArn.env]: SECRET_ARN,
    });
    expect(Object.keys(vars)).not.toContain(env.user.env);
    expect(Object.keys(vars)).not.toContain('INBOX_TABLE_NAME');
  });

  it("lets the function out to the cluster's port and to HTTPS (Secrets Manager), and in on the cluster's group", () => {
    const group = onlyResource(built.template, 'AWS::EC2::SecurityGroup');
    expect(group.Properties.SecurityGroupEgress).toEqual([
      {
        CidrIp: '0.0.0.0/0',
        Description: 'HTTPS to Secrets Manager for the database secret',
        FromPort: 443,
        IpProtocol: 'tcp',
        ToPort: 443,
      },
    ]);
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupEgress').Properties).toMatchObject({
      FromPort: 5432,
      DestinationSecurityGroupId: DATABASE_SG,
    });
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupIngress').Properties).toMatchObject({
      GroupId: DATABASE_SG,
      FromPort: 5432,
      ToPort: 5432,
    });
  });

  it('passes cdk-nag', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
  });
});

describe('KafkaConsumer with a Postgres inbox: IAM auth on a cluster and on an instance', () => {
  it("grants rds-db:connect on the cluster's resource identifier", () => {
    const { template } = build('cluster');
    expect(allowedPairs(connectStatements(template))).toEqual([
      `Allow rds-db:connect on "arn:aws:rds-db:us-east-1:123456789012:dbuser:${CLUSTER_RESOURCE_ID}/payments_consumer"`,
    ]);
  });

  it("grants rds-db:connect on the instance's resource id, with its endpoint", () => {
    const { template } = build('instance');
    expect(allowedPairs(connectStatements(template))).toEqual([
      `Allow rds-db:connect on "arn:aws:rds-db:us-east-1:123456789012:dbuser:${INSTANCE_RESOURCE_ID}/payments_consumer"`,
    ]);
    expect(variables(template)[env.host.env]).toBe('payments.abcdefghijkl.us-east-1.rds.amazonaws.com');
  });
});

describe('KafkaConsumer with a Postgres inbox: options', () => {
  it('schedules the deletion at the given rate, or not at all', () => {
    const every15 = build('proxy', { deleteExpiredRowsEvery: Duration.minutes(15) });
    expect(onlyResource(every15.template, 'AWS::Events::Rule').Properties.ScheduleExpression).toBe(
      'rate(15 minutes)',
    );
    const none = build('proxy', { deleteExpiredRowsEvery: false });
    expect(none.template.findResources('AWS::Events::Rule')).toEqual({});
    expect(none.template.findResources('AWS::Lambda::Permission')).toEqual({});
    expect(unacknowledgedFindings(none.app)).toEqual([]);
  });

  it('sets tls, schema, pool and statement timeout; no CA bundle without verify-full; other settings through environment', () => {
    const vars = variables(
      build(
        'proxy',
        { tls: 'require', schema: 'payments_inbox', poolMax: 4, statementTimeout: Duration.seconds(5) },
        { environment: { [env.idleTimeoutMs.env]: '30000' } },
      ).template,
    );
    expect(vars).toMatchObject({
      [env.idleTimeoutMs.env]: '30000',
      [env.tls.env]: 'require',
      [env.schema.env]: 'payments_inbox',
      [env.poolMax.env]: '4',
      [env.statementTimeoutMs.env]: '5000',
    });
    expect(Object.keys(vars)).not.toContain('NODE_EXTRA_CA_CERTS');
  });

  it('refuses a bad schema, a schedule under a minute, and POSTGRES_* in environment', () => {
    const problems = (() => {
      try {
        build(
          'proxy',
          { schema: 'Payments', deleteExpiredRowsEvery: Duration.seconds(30) },
          { environment: { POSTGRES_HOST: 'elsewhere' } },
        );
      } catch (error) {
        return (error as InvalidPropsError).problems;
      }
      return [];
    })();
    expect(problems).toEqual([
      `postgres.schema "Payments" ${env.schema.patternHint}`,
      'postgres.deleteExpiredRowsEvery is 30s: set whole minutes, at least 1 (or false for no schedule)',
      "environment sets POSTGRES_HOST: these come from the construct's props; remove them",
    ]);
  });
});

describe('KafkaConsumer with a Postgres inbox on an imported cluster without its port', () => {
  it('refuses it in one line, instead of failing inside the security group rules', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'NoPort', { env: ENV });
    const cluster = rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Cluster', {
      clusterIdentifier: 'payments',
      clusterResourceIdentifier: CLUSTER_RESOURCE_ID,
      clusterEndpointAddress: 'payments.cluster-abcdefghijkl.us-east-1.rds.amazonaws.com',
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', DATABASE_SG)],
    });
    const make = () =>
      new KafkaConsumer(stack, 'Consumer', {
        consumerName: 'payments',
        source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
        topic: 'payments',
        consumerGroupId: 'payments',
        entry: FIXTURE_ENTRY,
        postgres: {
          database: { kind: 'cluster', cluster },
          vpc: ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
            vpcId: 'vpc-0123456789abcdef0',
            availabilityZones: ['us-east-1a'],
            privateSubnetIds: ['subnet-0private0000000a'],
            privateSubnetRouteTableIds: ['rtb-0private0000000a'],
          }),
          databaseName: 'payments',
          auth: { iam: { user: 'payments_consumer' } },
        },
      });
    let refusal: unknown;
    try {
      make();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidPropsError);
    expect((refusal as InvalidPropsError).problems).toEqual([
      'postgres.database.cluster has no port: import it with its port, so its security groups can let the function in',
    ]);
  });
});

describe('KafkaConsumer inbox choice', () => {
  const problemsOf = (make: () => unknown): readonly string[] => {
    try {
      make();
    } catch (error) {
      if (error instanceof InvalidPropsError) return error.problems;
      throw error;
    }
    return [];
  };

  it('refuses no inbox at all, in one line', () => {
    const problems = problemsOf(() => {
      const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Neither');
      new KafkaConsumer(stack, 'Consumer', {
        consumerName: 'payments',
        source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
        topic: 'payments',
        consumerGroupId: 'payments',
        entry: FIXTURE_ENTRY,
      });
    });
    expect(problems).toEqual([
      'no inbox: give inboxTable (a DynamoDB InboxTable), postgres (your Postgres database, with store: postgresInbox() in the handler) or redis (your Redis cache, with store: redisInbox())',
    ]);
  });

  it('refuses both, in one line', () => {
    const problems = problemsOf(() =>
      build('proxy', {}, { inboxTable: new InboxTable(new Stack(projectApp(), 'Elsewhere'), 'Inbox') }),
    );
    expect(problems).toEqual([
      'both inboxTable and postgres are given: keep the one your handler uses (store: postgresInbox() is postgres)',
    ]);
  });
});

describe('monitoring, outputs and the operator policy of a Postgres consumer', () => {
  const withExtras = (kind: DatabaseKind, postgres: Parameters<typeof build>[1] = {}) => {
    let monitoring: ConsumerMonitoring | undefined;
    const built = build(kind, postgres, {}, (stack, consumer) => {
      monitoring = new ConsumerMonitoring(stack, 'Monitoring', { consumer });
      new OperatorPolicy(stack, 'Operators', { consumer });
      addOperatorOutputs(consumer);
    });
    if (monitoring === undefined) throw new Error('no monitoring');
    return { ...built, monitoring };
  };

  it("draws the proxy's connections and latency beside the handler's metrics, with the same alarms", () => {
    const { template, monitoring } = withExtras('proxy');
    const metrics = dashboardMetrics(template);
    for (const name of ['ClientConnections', 'DatabaseConnections', 'QueryDatabaseResponseLatency']) {
      expect(metrics).toContain(`AWS/RDS/${name}`);
    }
    expect(metrics).toContain('MskInbox/Quarantined');
    expect(Object.keys(monitoring.alarms.dynamoDbThrottles)).toEqual([]);
    expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm'))).toHaveLength(5);
  });

  it("draws the cluster's connections, CPU and deadlocks", () => {
    const metrics = dashboardMetrics(withExtras('cluster').template);
    for (const name of ['DatabaseConnections', 'CPUUtilization', 'Deadlocks']) {
      expect(metrics).toContain(`AWS/RDS/${name}`);
    }
  });

  it('declares the outputs msk-inbox --stack reads for Postgres (POSTGRES_STACK_OUTPUT_KEYS), and no table', () => {
    const outputs = withExtras('cluster', withSecret).template.toJSON().Outputs as Record<
      string,
      { Value: unknown }
    >;
    const keys = POSTGRES_STACK_OUTPUT_KEYS;
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'ConsumerName',
        'FailedBatchesBucket',
        'FunctionName',
        keys.auth,
        keys.database,
        keys.host,
        keys.port,
        keys.schema,
        keys.secretArn,
        keys.tls,
      ].sort(),
    );
    expect(outputs[keys.secretArn]?.Value).toBe(SECRET_ARN);
    expect(outputs[keys.auth]?.Value).toBe('secret');
    expect(outputs[keys.tls]?.Value).toBe('verify-full');
    expect(outputs[keys.host]?.Value).toBe('payments.cluster-abcdefghijkl.us-east-1.rds.amazonaws.com');
  });

  const operatorPairs = (template: Template): string[] =>
    allowedPairs(
      (Object.values(template.findResources('AWS::IAM::ManagedPolicy')) as Resource[]).flatMap(
        (policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
      ),
    );

  it('lets operators log in as the consumer does (rds-db:connect as its user), with no DynamoDB action; cdk-nag clean', () => {
    const built = withExtras('proxy');
    const pairs = operatorPairs(built.template);
    expect(pairs.filter((pair) => pair.includes('dynamodb:'))).toEqual([]);
    expect(pairs.filter((pair) => pair.includes('rds-db:'))).toEqual([
      'Allow rds-db:connect on "arn:aws:rds-db:us-east-1:123456789012:dbuser:prx-0123456789abcdef0/payments_consumer"',
    ]);
    expect(pairs.some((pair) => pair.startsWith('Allow lambda:InvokeFunction'))).toBe(true);
    expect(unacknowledgedFindings(built.app)).toEqual([]);
  });

  it("lets operators read the consumer's secret, and only it, with secret auth", () => {
    const pairs = operatorPairs(withExtras('cluster', withSecret).template);
    expect(pairs.filter((pair) => pair.includes('secretsmanager:') || pair.includes('rds-db:'))).toEqual([
      `Allow secretsmanager:DescribeSecret on "${SECRET_ARN}"`,
      `Allow secretsmanager:GetSecretValue on "${SECRET_ARN}"`,
    ]);
  });
});
