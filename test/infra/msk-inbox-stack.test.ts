import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_BUNDLE } from '../../lib/bundling.js';
import { MskInboxStack } from '../../sample/app/msk-inbox-stack.js';
import {
  acknowledgements,
  allFindings,
  defined,
  EXAMPLE_CLUSTER_ARN,
  EXAMPLE_SECRET_ARN,
  FIXTURE_ENTRY,
  logicalId,
  nagPacks,
  onlyResource,
  projectApp,
  unacknowledgedFindings,
} from './support.js';

/** The sample stack as `cdk synth` builds it: the real handler, CloudFormation validation and cdk-nag on. */
describe('MskInboxStack (sample order consumer)', () => {
  let app: App;
  let stack: MskInboxStack;
  let assembly: CloudAssembly;
  let template: Template;

  beforeAll(() => {
    app = projectApp({ outdir: mkdtempSync(join(tmpdir(), 'msk-inbox-')) });
    stack = new MskInboxStack(app, 'MskInbox', {
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
      alarmEmail: 'oncall@example.com',
    });
    Validations.of(app).addPlugins(...nagPacks());
    assembly = app.synth();
    template = Template.fromJSON(assembly.getStackByName('MskInbox').template);
  }, 120_000);

  it('wires the inbox and orders tables, the consumer, its mapping, the dashboard and the alarms', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 2);
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 7);
    const inboxId = logicalId(stack.inbox.table);
    const ordersId = logicalId(stack.ordersTable);
    const variables = (
      onlyResource(template, 'AWS::Lambda::Function').Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables).toMatchObject({
      INBOX_TABLE_NAME: { Ref: inboxId },
      APP_TABLE_NAME: { Ref: ordersId },
      CONSUMER_NAME: 'order-consumer',
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
    expect(Object.keys(template.toJSON().Outputs)).toEqual([
      'InboxTableName',
      'FunctionName',
      'ConsumerName',
      'FailedBatchesBucket',
      'OrdersTableName',
      'AlarmTopicArn',
      'OperatorPolicyArn',
      'DashboardName',
    ]);
  });

  it('bundles the real handler with the AWS SDK and the Lambda credential chain inside, as ESM with the require banner', () => {
    const fn = onlyResource(template, 'AWS::Lambda::Function');
    const key = (fn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
    const code = readFileSync(join(assembly.directory, `asset.${key}`, 'index.mjs'), 'utf8');
    expect(code.startsWith(HANDLER_BUNDLE.banner)).toBe(true);
    expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
    expect(code).toContain('TransactWriteItems');
    // The credential chain a Lambda function can use (lib/bundling.ts alias), not the SDK's SSO/profile chain.
    expect(code).toContain('neither AWS_ACCESS_KEY_ID');
    expect(code).not.toContain('sso_start_url');
    expect(existsSync(join(assembly.directory, `asset.${key}`, 'index.mjs.map'))).toBe(true);
  });

  it('passes CloudFormation template validation and cdk-nag (AwsSolutions, Serverless) with nothing unacknowledged', () => {
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
    expect(unacknowledgedFindings(app)).toEqual([]);
  });

  it("gives operators a managed policy for msk-inbox: this consumer's rows, its function, bucket and stack", () => {
    const bucketId = logicalId(defined(stack.consumer.failureBucket, 'the failure bucket'));
    const tableArn = { 'Fn::GetAtt': [logicalId(stack.inbox.table), 'Arn'] };
    const policy = onlyResource(template, 'AWS::IAM::ManagedPolicy');
    const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(Object.fromEntries(statements.map(({ Sid, ...rest }) => [Sid, rest]))).toEqual({
      ListQuarantine: {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [tableArn, '/index/quarantine']] },
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['order-consumer'] } },
      },
      ConsumerRows: {
        Effect: 'Allow',
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: tableArn,
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['order-consumer#*', 'order-consumer!*'] },
        },
      },
      Invoke: {
        Effect: 'Allow',
        Action: ['lambda:GetFunctionConfiguration', 'lambda:InvokeFunction'],
        Resource: { 'Fn::GetAtt': [logicalId(stack.consumer.function), 'Arn'] },
      },
      FailedBatchesList: {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': [bucketId, 'Arn'] },
      },
      FailedBatchesRead: {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
      },
      StackOutputs: {
        Effect: 'Allow',
        Action: 'cloudformation:DescribeStacks',
        Resource: { Ref: 'AWS::StackId' },
      },
    });
    // Nobody holds it until a team attaches it to its operators' role.
    expect(policy.Properties.Roles).toBeUndefined();
    template.hasOutput('OperatorPolicyArn', { Value: { Ref: logicalId(stack.operatorPolicy.policy) } });
  });

  it('acknowledges only findings that exist, each with its reason', () => {
    const acks = acknowledgements(app);
    const findings = allFindings(app);
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.rule} at ${ack.path}`).toBeGreaterThan(60);
      const matched = findings.some(
        (finding) => finding.rule === ack.rule && finding.path.startsWith(ack.path),
      );
      expect(matched, `${ack.rule} at ${ack.path} acknowledges nothing`).toBe(true);
    }
    expect(acks.map((ack) => `${ack.rule} ${ack.path.replace('MskInbox/', '')}`).sort()).toEqual(
      [
        'AwsSolutions-IAM5[Resource::*] OrderConsumer/Role/DefaultPolicy',
        'AwsSolutions-IAM5[Resource::<OrderConsumerFailedBatchesF6AA943D.Arn>/*] OrderConsumer/Role/DefaultPolicy',
        'AwsSolutions-IAM5[Resource::<OrderConsumerFailedBatchesF6AA943D.Arn>/*] Operators/Policy',
        'AwsSolutions-L1 OrderConsumer/Function/Resource',
        'AwsSolutions-S1 OrderConsumer/FailedBatches',
        'Serverless-LambdaDLQ OrderConsumer/Function/Resource',
        'Serverless-LambdaLatestVersion OrderConsumer/Function/Resource',
        'Serverless-LambdaTracing OrderConsumer/Function/Resource',
        'Serverless-SNSRedrivePolicy Monitoring/AlarmTopic/oncall@example.com',
      ].sort(),
    );
  });
});

describe('MskInboxStack on self-managed Kafka', () => {
  it('passes cdk-nag with nothing unacknowledged', () => {
    const app = projectApp({ builtinCloudFormationValidation: false });
    new MskInboxStack(app, 'SelfManaged', {
      source: {
        kind: 'self-managed',
        bootstrapServers: ['b-1.example.com:9096'],
        saslScramSecretArn: EXAMPLE_SECRET_ARN,
        vpc: { subnetIds: ['subnet-0a'], securityGroupIds: ['sg-0c'] },
      },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
      entry: FIXTURE_ENTRY,
    });
    Validations.of(app).addPlugins(...nagPacks());
    expect(() => app.synth()).not.toThrow();
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});
