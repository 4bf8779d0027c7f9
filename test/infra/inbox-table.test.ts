import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_ATTRIBUTES, QUARANTINE_INDEX } from '../../lambdas/core/inbox-rows.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { allowedPairs, onlyResource, policyStatements, projectApp } from './support.js';

describe('InboxTable', () => {
  let template: Template;

  beforeAll(() => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Inbox');
    const inbox = new InboxTable(stack, 'Inbox');
    inbox.grantConsumerAccess(
      new iam.Role(stack, 'Consumer', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
    );
    inbox.grantQuarantineRead(new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() }));
    template = Template.fromStack(stack);
  });

  it('declares the pk key, on-demand billing, TTL on expires_at, PITR, encryption and deletion protection', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(INBOX_ATTRIBUTES.expiresAt).toBe('expires_at');
  });

  it('is retained when it leaves the stack', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  it('has the sparse quarantine index the store queries', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table');
    expect(table.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'quarantine',
        KeySchema: [
          { AttributeName: 'quarantine_consumer', KeyType: 'HASH' },
          { AttributeName: 'quarantined_at', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    expect(table.Properties.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: QUARANTINE_INDEX.partitionKey, AttributeType: 'S' },
      { AttributeName: QUARANTINE_INDEX.sortKey, AttributeType: 'N' },
    ]);
  });

  it('grants a consumer exactly PutItem, UpdateItem, DeleteItem and GetItem on the table, and an operator Query on the index', () => {
    const tableArn = { 'Fn::GetAtt': [findTableId(template), 'Arn'] };
    expect(allowedPairs(policyStatements(template))).toEqual(
      allowedPairs([
        {
          Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
          Effect: 'Allow',
          Resource: tableArn,
        },
        {
          Action: 'dynamodb:Query',
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', [tableArn, '/index/quarantine']] },
        },
      ]),
    );
  });
});

describe('InboxTable props', () => {
  it('fails synth when the table would be destroyed yet deletion-protected', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    expect(() => new InboxTable(stack, 'Inbox', { removalPolicy: RemovalPolicy.DESTROY })).toThrow(
      /removalPolicy is DESTROY but deletionProtection is on/,
    );
  });

  it('fails synth on a recovery period outside 1-35 days', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    expect(() => new InboxTable(stack, 'Inbox', { pointInTimeRecoveryDays: 36 })).toThrow(
      /pointInTimeRecoveryDays is 36: set a whole number of days from 1 to 35/,
    );
  });

  it('can be made disposable for test environments', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Disposable');
    new InboxTable(stack, 'Inbox', { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false });
    const table = onlyResource(Template.fromStack(stack), 'AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
  });
});

function findTableId(template: Template): string {
  return Object.keys(template.findResources('AWS::DynamoDB::Table'))[0] ?? '';
}
