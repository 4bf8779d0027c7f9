import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_BUNDLE } from '../../lib/bundling.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { ESM_NETWORK_ACTIONS, KafkaConsumer, type KafkaConsumerProps } from '../../lib/kafka-consumer.js';
import {
  allowedPairs,
  defined,
  EXAMPLE_CLUSTER_ARN,
  EXAMPLE_SECRET_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  policyStatements,
  projectApp,
} from './support.js';

interface Built {
  readonly app: App;
  readonly stack: Stack;
  readonly template: Template;
  readonly consumer: KafkaConsumer;
  readonly ids: { inbox: string; orders: string; bucket: string; logs: string; role: string; fn: string };
}

function build(overrides: Partial<KafkaConsumerProps> = {}): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Consumer');
  const inbox = new InboxTable(stack, 'Inbox');
  const orders = new dynamodb.Table(stack, 'Orders', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
  });
  const consumer = new KafkaConsumer(stack, 'Orders' + 'Consumer', {
    consumerName: 'order-consumer',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: 'order-consumer-group',
    inboxTable: inbox,
    entry: FIXTURE_ENTRY,
    environment: { APP_TABLE_NAME: orders.tableName },
    ...overrides,
  });
  // What a team does for its effect's table: that action, on that table.
  consumer.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [orders.tableArn] }),
  );
  const id = logicalId;
  return {
    app,
    stack,
    template: Template.fromStack(stack),
    consumer,
    ids: {
      inbox: id(inbox.table),
      orders: id(orders),
      bucket: id(defined(consumer.failureBucket, 'the failure bucket')),
      logs: id(consumer.logGroup),
      role: id(consumer.role),
      fn: id(consumer.function),
    },
  };
}

const arn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

describe('KafkaConsumer on MSK with IAM authentication (defaults)', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  it('runs nodejs22.x on ARM64 with memory, timeout, JSON logs and its own log group', () => {
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 1024,
      Timeout: 60,
      LoggingConfig: {
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
        LogGroup: { Ref: built.ids.logs },
      },
      Role: arn(built.ids.role),
    });
    expect(onlyResource(built.template, 'AWS::Logs::LogGroup').Properties).toEqual({ RetentionInDays: 30 });
  });

  it('sets exactly the environment the handler reads', () => {
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    expect((fn.Properties.Environment as { Variables: unknown }).Variables).toEqual({
      INBOX_TABLE_NAME: { Ref: built.ids.inbox },
      APP_TABLE_NAME: { Ref: built.ids.orders },
      CONSUMER_NAME: 'order-consumer',
      KAFKA_CONSUMER_GROUP_ID: 'order-consumer-group',
      DEDUP_TTL_SECONDS: '604800',
      DEADLINE_MARGIN_MS: '3000',
      POWERTOOLS_SERVICE_NAME: 'order-consumer',
      POWERTOOLS_METRICS_NAMESPACE: 'MskInbox',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it('bundles a minified ESM file with the require banner and a source map', () => {
    const assembly = built.app.synth();
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    const key = (fn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
    const dir = join(assembly.directory, `asset.${key}`);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code.startsWith(HANDLER_BUNDLE.banner)).toBe(true);
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    expect(code.split('\n').length).toBeLessThanOrEqual(4);
  });

  it('maps the topic with partial batch responses, provisioned pollers, finite retries, max record age and bisect', () => {
    const mapping = onlyResource(built.template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toEqual({
      EventSourceArn: EXAMPLE_CLUSTER_ARN,
      FunctionName: { Ref: built.ids.fn },
      Topics: ['orders'],
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'order-consumer-group' },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 2 },
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86400,
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: arn(built.ids.bucket) } },
      MetricsConfig: { Metrics: ['EventCount', 'ErrorCount', 'KafkaMetrics'] },
      LoggingConfig: { SystemLogLevel: 'WARN' },
    });
  });

  it('creates the mapping only once its role policy exists', () => {
    const mapping = onlyResource(built.template, 'AWS::Lambda::EventSourceMapping');
    const policyId = Object.keys(built.template.findResources('AWS::IAM::Policy'))[0];
    expect(mapping.DependsOn).toEqual([policyId]);
  });

  it('keeps failed batches in an encrypted, private, TLS-only bucket that expires them', () => {
    const bucket = onlyResource(built.template, 'AWS::S3::Bucket');
    expect(bucket.Properties).toEqual({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: [
          {
            Id: 'expire-failed-batches',
            Status: 'Enabled',
            ExpirationInDays: 90,
            NoncurrentVersionExpiration: { NoncurrentDays: 1 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          },
        ],
      },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
    const policy = onlyResource(built.template, 'AWS::S3::BucketPolicy');
    expect(JSON.stringify(policy.Properties)).toContain('"aws:SecureTransport":"false"');
  });

  it('allows exactly the actions the code and the mapping use, on their resources', () => {
    const cluster = EXAMPLE_CLUSTER_ARN;
    const clusterPath = 'demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2';
    expect(allowedPairs(policyStatements(built.template))).toEqual(
      allowedPairs([
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: arn(built.ids.logs),
        },
        {
          Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
          Effect: 'Allow',
          Resource: arn(built.ids.inbox),
        },
        {
          Action: 's3:PutObject',
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', [arn(built.ids.bucket), '/*']] },
        },
        { Action: 's3:ListBucket', Effect: 'Allow', Resource: arn(built.ids.bucket) },
        {
          Action: ['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'],
          Effect: 'Allow',
          Resource: cluster,
        },
        {
          Action: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
          Effect: 'Allow',
          Resource: cluster,
        },
        {
          Action: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
          Effect: 'Allow',
          Resource: `arn:aws:kafka:us-east-1:123456789012:topic/${clusterPath}/orders`,
        },
        {
          Action: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
          Effect: 'Allow',
          Resource: `arn:aws:kafka:us-east-1:123456789012:group/${clusterPath}/order-consumer-group`,
        },
        { Action: [...ESM_NETWORK_ACTIONS], Effect: 'Allow', Resource: '*' },
        // The team's own grant for its effect.
        { Action: 'dynamodb:UpdateItem', Effect: 'Allow', Resource: arn(built.ids.orders) },
      ]),
    );
  });

  it('attaches no managed policy (not AWSLambdaMSKExecutionRole, not AWSLambdaBasicExecutionRole)', () => {
    const role = onlyResource(built.template, 'AWS::IAM::Role');
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('KafkaConsumer on MSK with a cluster ARN from another construct', () => {
  it('derives the topic and group ARNs in CloudFormation', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Token');
    const clusterArn = new lambda.CfnFunction(stack, 'Stand-in', { code: {}, role: 'r' }).attrArn;
    const consumer = new KafkaConsumer(stack, 'Consumer', {
      consumerName: 'c',
      source: { kind: 'msk', clusterArn },
      topic: 'orders',
      consumerGroupId: 'g',
      inboxTable: new InboxTable(stack, 'Inbox'),
      entry: FIXTURE_ENTRY,
    });
    const statements = policyStatements(Template.fromStack(stack));
    const topic = statements.find((s) => JSON.stringify(s.Action).includes('kafka-cluster:ReadData'));
    const joined = JSON.stringify(topic?.Resource);
    expect(joined).toContain('":topic/"');
    expect(joined).toContain('"/orders"');
    expect(consumer.consumerName).toBe('c');
  });
});

describe('KafkaConsumer on MSK with SASL/SCRAM', () => {
  let template: Template;
  beforeAll(() => {
    template = build({
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN, saslScramSecretArn: EXAMPLE_SECRET_ARN },
    }).template;
  });

  it('passes the secret to the mapping and may read it, with no kafka-cluster actions', () => {
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties.SourceAccessConfigurations).toEqual([
      { Type: 'SASL_SCRAM_512_AUTH', URI: EXAMPLE_SECRET_ARN },
    ]);
    const statements = policyStatements(template);
    expect(statements).toContainEqual({
      Action: 'secretsmanager:GetSecretValue',
      Effect: 'Allow',
      Resource: EXAMPLE_SECRET_ARN,
    });
    expect(JSON.stringify(statements)).not.toContain('kafka-cluster:');
  });
});

describe('KafkaConsumer on self-managed Kafka in a VPC', () => {
  let built: Built;
  beforeAll(() => {
    built = build({
      source: {
        kind: 'self-managed',
        bootstrapServers: ['b-1.example.com:9096', 'b-2.example.com:9096'],
        saslScramSecretArn: EXAMPLE_SECRET_ARN,
        vpc: { subnetIds: ['subnet-0a', 'subnet-0b'], securityGroupIds: ['sg-0c'] },
      },
    });
  });

  it('points the mapping at the brokers with SCRAM, subnets and security group', () => {
    const mapping = onlyResource(built.template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toMatchObject({
      SelfManagedEventSource: {
        Endpoints: { KafkaBootstrapServers: ['b-1.example.com:9096', 'b-2.example.com:9096'] },
      },
      SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: 'order-consumer-group' },
      SourceAccessConfigurations: [
        { Type: 'SASL_SCRAM_512_AUTH', URI: EXAMPLE_SECRET_ARN },
        { Type: 'VPC_SUBNET', URI: 'subnet:subnet-0a' },
        { Type: 'VPC_SUBNET', URI: 'subnet:subnet-0b' },
        { Type: 'VPC_SECURITY_GROUP', URI: 'security_group:sg-0c' },
      ],
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 2 },
    });
    expect(mapping.Properties.EventSourceArn).toBeUndefined();
  });

  it('may read the secret and manage ENIs, and has no kafka actions', () => {
    const statements = policyStatements(built.template);
    expect(allowedPairs(statements)).toEqual(
      expect.arrayContaining(
        allowedPairs([
          { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: EXAMPLE_SECRET_ARN },
          { Action: [...ESM_NETWORK_ACTIONS], Effect: 'Allow', Resource: '*' },
        ]),
      ),
    );
    expect(JSON.stringify(statements)).not.toMatch(/"kafka(-cluster)?:/);
  });
});

describe('KafkaConsumer props', () => {
  const invalid: [string, Partial<KafkaConsumerProps>, RegExp][] = [
    [
      'partial batch responses without provisioned mode',
      { provisionedPollers: false },
      /provisionedPollers is false, but partial batch responses \(always on\) are ignored outside provisioned mode/,
    ],
    [
      'a dedup TTL shorter than the maximum record age',
      { dedupTtl: Duration.hours(12), maxRecordAge: Duration.days(1) },
      /dedupTtl \(43200s\) is shorter than maxRecordAge \(86400s\)/,
    ],
    [
      'a dedup TTL shorter than the declared topic retention',
      { dedupTtl: Duration.days(3), topicRetention: Duration.days(7) },
      /dedupTtl \(259200s\) is shorter than topicRetention \(604800s\)/,
    ],
    [
      'a batch size above 10,000',
      { batchSize: 10_001 },
      /batchSize is 10001: Kafka event source mappings take 1 to 10000/,
    ],
    ['infinite retries', { retryAttempts: -1 }, /retryAttempts is -1: set a finite count from 0 to 10000/],
    [
      'a maximum record age above 7 days',
      { maxRecordAge: Duration.days(8), dedupTtl: Duration.days(8) },
      /maxRecordAge is 691200s: set 60 seconds to 7 days/,
    ],
    [
      'more minimum than maximum pollers',
      { provisionedPollers: { minimumPollers: 5, maximumPollers: 2 } },
      /minimumPollers \(5\) exceeds maximumPollers \(2\)/,
    ],
    [
      'a cluster ARN that is not MSK',
      { source: { kind: 'msk', clusterArn: 'arn:aws:s3:::bucket' } },
      /is not an MSK cluster ARN/,
    ],
    [
      'a deadline margin as long as the timeout',
      { deadlineMargin: Duration.seconds(60) },
      /deadlineMargin \(60000 ms\) must be shorter than timeout/,
    ],
    [
      'an environment that overrides the construct',
      { environment: { CONSUMER_NAME: 'x' } },
      /environment sets CONSUMER_NAME/,
    ],
    [
      'a sub-second batching window',
      { maxBatchingWindow: Duration.millis(1500) },
      /maxBatchingWindow is 1500 ms: set whole seconds/,
    ],
    [
      'a self-managed broker without a port',
      {
        source: {
          kind: 'self-managed',
          bootstrapServers: ['broker'],
          saslScramSecretArn: EXAMPLE_SECRET_ARN,
        },
      },
      /source.bootstrapServers has "broker": write each broker as host:port/,
    ],
  ];

  it.each(invalid)('fails synth on %s', (_case, overrides, message) => {
    expect(() => build(overrides)).toThrow(message);
  });

  it('names every problem in one error', () => {
    expect(() => build({ batchSize: 0, retryAttempts: -1, provisionedPollers: false })).toThrow(
      /batchSize is 0[\s\S]*retryAttempts is -1[\s\S]*provisionedPollers is false|provisionedPollers is false[\s\S]*batchSize is 0[\s\S]*retryAttempts is -1/,
    );
  });
});
