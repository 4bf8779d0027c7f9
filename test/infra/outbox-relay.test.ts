import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import { RELAY_ENTRY } from '../../lib/bundling.js';
import { OutboxRelay, type OutboxRelayProps } from '../../lib/outbox-relay.js';
import { OutboxTable } from '../../lib/outbox-table.js';
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

const TOPIC_PREFIX =
  'arn:aws:kafka:us-east-1:123456789012:topic/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2/';
const BROKERS = 'b-1.demo.kafka.us-east-1.amazonaws.com:9098,b-2.demo.kafka.us-east-1.amazonaws.com:9098';

interface Built {
  readonly app: App;
  readonly template: Template;
  readonly relay: OutboxRelay;
  readonly outboxId: string;
}

type Placement = 'vpc-and-brokers-group' | 'vpc' | 'none';

function build(placement: Placement, overrides: Partial<OutboxRelayProps> = {}): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Relay', { env: { account: '123456789012', region: 'us-east-1' } });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    vpcCidrBlock: '10.0.0.0/16',
    availabilityZones: ['us-east-1a', 'us-east-1b'],
    privateSubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
    privateSubnetRouteTableIds: ['rtb-0private0000000a', 'rtb-0private0000000b'],
  });
  const outbox = new OutboxTable(stack, 'Outbox');
  const relay = new OutboxRelay(stack, 'Relay', {
    outbox,
    topics: ['payments', 'invoices'],
    cluster: {
      clusterArn: EXAMPLE_CLUSTER_ARN,
      bootstrapServers: BROKERS,
      ...(placement === 'none' ? {} : { vpc }),
      ...(placement === 'vpc-and-brokers-group'
        ? { securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Brokers', 'sg-0brokers000000000') }
        : {}),
    },
    ...overrides,
  });
  Validations.of(app).addPlugins(...nagPacks());
  app.synth();
  return { app, template: Template.fromStack(stack), relay, outboxId: logicalId(outbox.table) };
}

describe('OutboxRelay in the brokers VPC, let in by their security group', () => {
  let built: Built;
  beforeAll(() => {
    built = build('vpc-and-brokers-group');
  }, 120_000);

  it("bundles the package's relay entry and runs it on nodejs22.x ARM64 with the relay settings", () => {
    expect(RELAY_ENTRY.replaceAll('\\', '/')).toMatch(/\/lambdas\/outbox-relay\/handler\.ts$/);
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 60,
      Environment: {
        Variables: {
          OUTBOX_TABLE_NAME: { Ref: built.outboxId },
          KAFKA_BOOTSTRAP_SERVERS: BROKERS,
          KAFKA_AUTH: 'iam',
          POWERTOOLS_METRICS_NAMESPACE: 'MskInbox',
        },
      },
      VpcConfig: {
        SubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
        SecurityGroupIds: [
          { 'Fn::GetAtt': [logicalId(built.relay.securityGroup as ec2.SecurityGroup), 'GroupId'] },
        ],
      },
    });
  });

  it('reads the outbox stream from TRIM_HORIZON, filtered to appends, with partial batch responses, bisect, finite retries and a failure queue', () => {
    const mapping = onlyResource(built.template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toEqual({
      FunctionName: { Ref: logicalId(built.relay.function) },
      EventSourceArn: { 'Fn::GetAtt': [built.outboxId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10_000,
      MaximumRecordAgeInSeconds: 6 * 3600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(built.relay.failureQueue), 'Arn'] } },
      },
      FilterCriteria: {
        Filters: [
          {
            // Only the `dynamodb` key: Lambda's DynamoDB filters take nothing else (docs/aws-facts.md).
            Pattern: JSON.stringify({ dynamodb: { NewImage: { change: { S: ['appended'] } } } }),
          },
        ],
      },
      MetricsConfig: { Metrics: ['EventCount'] },
    });
    expect(mapping.DependsOn).toEqual([logicalId(built.relay.role.node.findChild('DefaultPolicy'))]);
  });

  it('keeps failed batches in an encrypted queue that refuses plain HTTP', () => {
    expect(onlyResource(built.template, 'AWS::SQS::Queue').Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    built.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: [{ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }],
      },
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
    expect(kafka.filter((pair) => pair.includes('*'))).toEqual([]);
  });

  it('is granted the relay access on the outbox, its logs, the failure queue and its network interfaces, nothing more', () => {
    const table = JSON.stringify({ 'Fn::GetAtt': [built.outboxId, 'Arn'] });
    const stream = JSON.stringify({ 'Fn::GetAtt': [built.outboxId, 'StreamArn'] });
    const queue = JSON.stringify({ 'Fn::GetAtt': [logicalId(built.relay.failureQueue), 'Arn'] });
    const logs = JSON.stringify({ 'Fn::GetAtt': [logicalId(built.relay.logGroup), 'Arn'] });
    const pairs = allowedPairs(policyStatements(built.template)).filter((pair) => !pair.includes(' kafka'));
    expect(pairs).toEqual(
      [
        ...['GetItem', 'UpdateItem', 'DeleteItem', 'PutItem'].map((a) => `Allow dynamodb:${a} on ${table}`),
        ...['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].map(
          (action) => `Allow dynamodb:${action} on ${stream}`,
        ),
        ...['SendMessage', 'GetQueueAttributes', 'GetQueueUrl'].map((a) => `Allow sqs:${a} on ${queue}`),
        ...['CreateLogStream', 'PutLogEvents'].map((action) => `Allow logs:${action} on ${logs}`),
        ...[
          'CreateNetworkInterface',
          'DescribeNetworkInterfaces',
          'DescribeSubnets',
          'DeleteNetworkInterface',
          'AssignPrivateIpAddresses',
          'UnassignPrivateIpAddresses',
        ].map((action) => `Allow ec2:${action} on "*"`),
      ].sort(),
    );
  });

  it('reaches the brokers through their security group on the IAM port, and DynamoDB over HTTPS, nothing else', () => {
    const group = { 'Fn::GetAtt': [logicalId(built.relay.securityGroup as ec2.SecurityGroup), 'GroupId'] };
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress).toEqual([
      {
        CidrIp: '0.0.0.0/0',
        Description: 'HTTPS to DynamoDB',
        FromPort: 443,
        IpProtocol: 'tcp',
        ToPort: 443,
      },
    ]);
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupEgress').Properties).toMatchObject({
      GroupId: group,
      DestinationSecurityGroupId: 'sg-0brokers000000000',
      FromPort: 9098,
      ToPort: 9098,
    });
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupIngress').Properties).toMatchObject({
      GroupId: 'sg-0brokers000000000',
      SourceSecurityGroupId: group,
      FromPort: 9098,
      ToPort: 9098,
    });
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
    expect(acks.map((ack) => `${ack.rule} ${ack.path.replace('Relay/Relay/', '')}`).sort()).toEqual(
      [
        'AwsSolutions-IAM5[Resource::*] Role/DefaultPolicy',
        'AwsSolutions-L1 Function/Resource',
        'AwsSolutions-SQS3 FailedBatches',
        'Serverless-LambdaDLQ Function/Resource',
        'Serverless-LambdaLatestVersion Function/Resource',
        'Serverless-LambdaTracing Function/Resource',
        'Serverless-SQSRedrivePolicy FailedBatches',
      ].sort(),
    );
  });
});

describe('OutboxRelay in the VPC without the brokers security group', () => {
  it("may reach the VPC's CIDR on the brokers' port", () => {
    const { template } = build('vpc');
    expect(onlyResource(template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress).toContainEqual({
      CidrIp: '10.0.0.0/16',
      Description: 'MSK brokers (IAM)',
      FromPort: 9098,
      IpProtocol: 'tcp',
      ToPort: 9098,
    });
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
  });
});

describe('OutboxRelay outside a VPC (a cluster with public access)', () => {
  it('has no VPC configuration, security group or network interface actions, and passes cdk-nag', () => {
    const { app, template } = build('none');
    expect(onlyResource(template, 'AWS::Lambda::Function').Properties.VpcConfig).toBeUndefined();
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    expect(allowedPairs(policyStatements(template)).filter((pair) => pair.includes('ec2:'))).toEqual([]);
    expect(unacknowledgedFindings(app)).toEqual([]);
    expect(acknowledgements(app).map((ack) => ack.rule)).not.toContain('AwsSolutions-IAM5[Resource::*]');
  });
});
