import { type App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  POSTGRES_RELAY_SETTINGS,
  readPostgresRelayConfig,
} from '../../lambdas/postgres/outbox/relay-settings.js';
import { POSTGRES_SETTINGS } from '../../lambdas/postgres/postgres-settings.js';
import { POSTGRES_RELAY_ENTRY } from '../../lib/bundling.js';
import { FUNCTION_VPC_ACTIONS, LAMBDA_CA_BUNDLE } from '../../lib/postgres-database.js';
import { PostgresOutboxRelay, type PostgresOutboxRelayProps } from '../../lib/postgres-outbox-relay.js';
import {
  acknowledgements,
  allFindings,
  allowedPairs,
  EXAMPLE_CLUSTER_ARN,
  logicalId,
  nagPacks,
  onlyResource,
  policyStatements,
  projectApp,
  unacknowledgedFindings,
} from './support.js';

const ENV = { account: '123456789012', region: 'us-east-1' };
const TOPIC_PREFIX =
  'arn:aws:kafka:us-east-1:123456789012:topic/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2/';
const BROKERS = 'b-1.demo.kafka.us-east-1.amazonaws.com:9098,b-2.demo.kafka.us-east-1.amazonaws.com:9098';
const PROXY_ARN = 'arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123456789abcdef0';
const PROXY_HOST = 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com';
const CLUSTER_RESOURCE_ID = 'cluster-ABCDEFGHIJKLMNOPQRSTUVWXY0';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:payments-db-AbCdEf';
const DATABASE_SG = 'sg-0database00000000';
const BROKERS_SG = 'sg-0brokers000000000';
const env = POSTGRES_SETTINGS;

interface Built {
  readonly app: App;
  readonly template: Template;
  readonly relay: PostgresOutboxRelay;
}

type Overrides = (stack: Stack, vpc: ec2.IVpc) => Partial<PostgresOutboxRelayProps>;

/** A team's stack: its VPC, database and brokers imported, and the relay for the consumers' outbox. */
function build(kind: 'proxy' | 'cluster-secret', overrides: Overrides = () => ({})): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Payments', { env: ENV });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    vpcCidrBlock: '10.0.0.0/16',
    availabilityZones: ['us-east-1a', 'us-east-1b'],
    privateSubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
    privateSubnetRouteTableIds: ['rtb-0private0000000a', 'rtb-0private0000000b'],
  });
  const securityGroups = [ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', DATABASE_SG)];
  const postgres: PostgresOutboxRelayProps['postgres'] =
    kind === 'proxy'
      ? {
          database: {
            kind: 'proxy',
            proxy: rds.DatabaseProxy.fromDatabaseProxyAttributes(stack, 'Proxy', {
              dbProxyName: 'payments-proxy',
              dbProxyArn: PROXY_ARN,
              endpoint: PROXY_HOST,
              securityGroups,
            }),
            securityGroups,
          },
          vpc,
          databaseName: 'payments',
          auth: { iam: { user: 'outbox_relay' } },
        }
      : {
          database: {
            kind: 'cluster',
            cluster: rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Cluster', {
              clusterIdentifier: 'payments',
              clusterResourceIdentifier: CLUSTER_RESOURCE_ID,
              clusterEndpointAddress: 'payments.cluster-abcdefghijkl.us-east-1.rds.amazonaws.com',
              port: 5432,
              securityGroups,
            }),
          },
          vpc,
          databaseName: 'payments',
          auth: { secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', SECRET_ARN) },
        };
  const relay = new PostgresOutboxRelay(stack, 'Relay', {
    postgres,
    topics: ['payments', 'invoices'],
    cluster: {
      clusterArn: EXAMPLE_CLUSTER_ARN,
      bootstrapServers: BROKERS,
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Brokers', BROKERS_SG),
    },
    ...overrides(stack, vpc),
  });
  Validations.of(app).addPlugins(...nagPacks());
  app.synth();
  return { app, template: Template.fromStack(stack), relay };
}

function variables(template: Template): Record<string, string> {
  const fn = onlyResource(template, 'AWS::Lambda::Function');
  return (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
}

/** The security group rules of a type, by port (the database's 5432, then the brokers' 9098). */
function rulesByPort(template: Template, type: string): Record<string, unknown>[] {
  return Object.values(template.findResources(type))
    .map((rule) => (rule as { Properties: Record<string, unknown> }).Properties)
    .sort((a, b) => Number(a.FromPort) - Number(b.FromPort));
}

describe('PostgresOutboxRelay behind an RDS Proxy, IAM auth (defaults)', () => {
  let built: Built;
  beforeAll(() => {
    built = build('proxy');
  }, 120_000);

  it("bundles the package's Postgres relay entry, in the database's VPC, with the database, Kafka and relay settings", () => {
    expect(POSTGRES_RELAY_ENTRY.replaceAll('\\', '/')).toMatch(
      /\/lambdas\/postgres\/outbox\/relay-handler\.ts$/,
    );
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 120,
      VpcConfig: {
        SubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
        SecurityGroupIds: [{ 'Fn::GetAtt': [logicalId(built.relay.securityGroup), 'GroupId'] }],
      },
    });
    expect(variables(built.template)).toEqual({
      [env.host.env]: PROXY_HOST,
      [env.port.env]: '5432',
      [env.database.env]: 'payments',
      [env.auth.env]: 'iam',
      [env.user.env]: 'outbox_relay',
      [env.tls.env]: 'verify-full',
      [env.schema.env]: 'msk_inbox',
      NODE_EXTRA_CA_CERTS: LAMBDA_CA_BUNDLE,
      KAFKA_BOOTSTRAP_SERVERS: BROKERS,
      KAFKA_AUTH: 'iam',
      [POSTGRES_RELAY_SETTINGS.wake.env]: 'notify',
      [POSTGRES_RELAY_SETTINGS.pollIntervalMs.env]: '1000',
      POWERTOOLS_SERVICE_NAME: 'outbox-relay',
      POWERTOOLS_METRICS_NAMESPACE: 'MskInbox',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it("writes what the relay's own settings reader takes, as Lambda runs it", () => {
    const config = readPostgresRelayConfig({ ...variables(built.template), AWS_REGION: 'us-east-1' });
    expect(config).toMatchObject({
      brokers: BROKERS.split(','),
      kafkaAuth: 'iam',
      postgres: {
        host: PROXY_HOST,
        port: 5432,
        database: 'payments',
        user: 'outbox_relay',
        schema: 'msk_inbox',
      },
      relay: {
        wake: 'notify',
        pollIntervalMs: 1000,
        keysPerRound: POSTGRES_RELAY_SETTINGS.keysPerRound.default,
      },
    });
  });

  it('is started every minute by its rule, neither retried nor kept longer than that, and gets no expired-rows schedule', () => {
    const rule = onlyResource(built.template, 'AWS::Events::Rule');
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [logicalId(built.relay.function), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0 },
      }),
    ]);
    expect(JSON.stringify(rule.Properties.Targets)).not.toContain('delete-expired-rows');
    expect(built.relay.postgres.expiredRowsRule).toBeUndefined();
    expect(onlyResource(built.template, 'AWS::Lambda::Permission').Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
    });
    expect(onlyResource(built.template, 'AWS::Lambda::EventInvokeConfig').Properties).toMatchObject({
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('may connect to the cluster and describe and write the listed topics only, nothing else on Kafka', () => {
    const kafka = allowedPairs(policyStatements(built.template)).filter((pair) => pair.includes(' kafka'));
    expect(kafka).toEqual(
      [
        `Allow kafka-cluster:Connect on "${EXAMPLE_CLUSTER_ARN}"`,
        ...['payments', 'invoices'].flatMap((topic) => [
          `Allow kafka-cluster:DescribeTopic on "${TOPIC_PREFIX}${topic}"`,
          `Allow kafka-cluster:WriteData on "${TOPIC_PREFIX}${topic}"`,
        ]),
      ].sort(),
    );
  });

  it('is granted rds-db:connect as its user, its logs and its network interfaces, nothing more', () => {
    const logs = JSON.stringify({ 'Fn::GetAtt': [logicalId(built.relay.logGroup), 'Arn'] });
    const pairs = allowedPairs(policyStatements(built.template)).filter((pair) => !pair.includes(' kafka'));
    expect(pairs).toEqual(
      [
        'Allow rds-db:connect on "arn:aws:rds-db:us-east-1:123456789012:dbuser:prx-0123456789abcdef0/outbox_relay"',
        ...['CreateLogStream', 'PutLogEvents'].map((action) => `Allow logs:${action} on ${logs}`),
        ...FUNCTION_VPC_ACTIONS.map((action) => `Allow ${action} on "*"`),
      ].sort(),
    );
  });

  it('reaches the proxy on 5432 and the brokers on 9098 through their groups, nothing else', () => {
    const group = { 'Fn::GetAtt': [logicalId(built.relay.securityGroup), 'GroupId'] };
    // allowAllOutbound: false leaves CDK's placeholder rule only until a real one is added.
    expect(
      onlyResource(built.template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress,
    ).toBeUndefined();
    const egress = rulesByPort(built.template, 'AWS::EC2::SecurityGroupEgress');
    expect(egress).toEqual([
      expect.objectContaining({
        GroupId: group,
        DestinationSecurityGroupId: DATABASE_SG,
        FromPort: 5432,
        ToPort: 5432,
      }),
      expect.objectContaining({
        GroupId: group,
        DestinationSecurityGroupId: BROKERS_SG,
        FromPort: 9098,
        ToPort: 9098,
      }),
    ]);
    const ingress = rulesByPort(built.template, 'AWS::EC2::SecurityGroupIngress');
    expect(ingress).toEqual([
      expect.objectContaining({
        GroupId: DATABASE_SG,
        SourceSecurityGroupId: group,
        FromPort: 5432,
        Description: 'Postgres outbox relay function (msk-inbox) to Postgres',
      }),
      expect.objectContaining({
        GroupId: BROKERS_SG,
        SourceSecurityGroupId: group,
        FromPort: 9098,
        Description: 'Postgres outbox relay to MSK (IAM)',
      }),
    ]);
  });

  it('passes cdk-nag (AwsSolutions, Serverless), acknowledging only findings that exist, each with its reason', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
    const findings = allFindings(built.app);
    const acks = acknowledgements(built.app);
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.rule} at ${ack.path}`).toBeGreaterThan(60);
      const matched = findings.some(
        (finding) => finding.rule === ack.rule && finding.path.startsWith(ack.path),
      );
      expect(matched, `${ack.rule} at ${ack.path} acknowledges nothing`).toBe(true);
    }
    expect(acks.map((ack) => `${ack.rule} ${ack.path.replace('Payments/Relay/', '')}`).sort()).toEqual(
      [
        'AwsSolutions-IAM5[Resource::*] Role/DefaultPolicy',
        'AwsSolutions-L1 Function/Resource',
        'Serverless-LambdaAsyncFailureDestination Function/EventInvokeConfig',
        'Serverless-EventBusDLQ Schedule',
        'Serverless-LambdaDLQ Function/Resource',
        'Serverless-LambdaLatestVersion Function/Resource',
        'Serverless-LambdaTracing Function/Resource',
      ].sort(),
    );
  });
});

describe('PostgresOutboxRelay on an Aurora cluster, secret auth', () => {
  let built: Built;
  beforeAll(() => {
    built = build('cluster-secret');
  }, 120_000);

  it('reads that secret only, with no rds-db:connect, and may reach Secrets Manager over HTTPS', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs.filter((pair) => pair.includes('secretsmanager:') || pair.includes('rds-db:'))).toEqual([
      `Allow secretsmanager:DescribeSecret on "${SECRET_ARN}"`,
      `Allow secretsmanager:GetSecretValue on "${SECRET_ARN}"`,
    ]);
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 }),
    ]);
    expect(variables(built.template)).toMatchObject({
      [env.auth.env]: 'secret',
      [env.secretArn.env]: SECRET_ARN,
    });
    expect(unacknowledgedFindings(built.app)).toEqual([]);
  });
});

describe('PostgresOutboxRelay options', () => {
  it('takes its schedule, timeout, memory, wake and poll interval', () => {
    const { template } = build('proxy', () => ({
      schedule: Duration.minutes(5),
      timeout: Duration.minutes(10),
      memorySize: 1024,
      wake: 'poll',
      pollInterval: Duration.millis(250),
    }));
    expect(onlyResource(template, 'AWS::Events::Rule').Properties.ScheduleExpression).toBe('rate(5 minutes)');
    expect(onlyResource(template, 'AWS::Lambda::Function').Properties).toMatchObject({
      Timeout: 600,
      MemorySize: 1024,
    });
    expect(variables(template)).toMatchObject({ OUTBOX_WAKE: 'poll', OUTBOX_POLL_INTERVAL_MS: '250' });
    expect(onlyResource(template, 'AWS::Lambda::EventInvokeConfig').Properties.MaximumEventAgeInSeconds).toBe(
      300,
    );
  });

  it("takes the database's VPC as cluster.vpc, and reaches the VPC's CIDR on the brokers' port without their group", () => {
    const { template } = build('proxy', (stack, vpc) => ({
      cluster: {
        clusterArn: EXAMPLE_CLUSTER_ARN,
        bootstrapServers: BROKERS,
        // The same VPC imported again: one VPC by its id.
        vpc: ec2.Vpc.fromVpcAttributes(stack, 'SameVpc', {
          vpcId: vpc.vpcId,
          availabilityZones: ['us-east-1a'],
        }),
      },
    }));
    expect(onlyResource(template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress).toEqual([
      {
        CidrIp: '10.0.0.0/16',
        Description: 'MSK brokers (IAM)',
        FromPort: 9098,
        IpProtocol: 'tcp',
        ToPort: 9098,
      },
    ]);
  });
});
