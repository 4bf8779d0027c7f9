import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES } from '../../lambdas/core/outbox-rows.js';
import { OutboxTable } from '../../lib/outbox-table.js';
import { allowedPairs, logicalId, onlyResource, projectApp, type Resource } from './support.js';

/** The statements of one role's policy. */
function statementsOf(template: Template, role: iam.Role): Record<string, unknown>[] {
  const roleId = logicalId(role);
  return (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
    .flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
}

describe('OutboxTable', () => {
  let template: Template;
  let tableArn: unknown;
  let streamArn: unknown;
  let roles: Record<'consumer' | 'relay' | 'operator' | 'scopedOperator', iam.Role>;

  beforeAll(() => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Outbox');
    const outbox = new OutboxTable(stack, 'Outbox');
    const role = (id: string) =>
      new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    roles = {
      consumer: role('Consumer'),
      relay: role('Relay'),
      operator: role('Operator'),
      scopedOperator: role('ScopedOperator'),
    };
    outbox.grantAppend(roles.consumer);
    outbox.grantRelay(roles.relay);
    outbox.grantOperator(roles.operator);
    outbox.grantOperator(roles.scopedOperator, 'order-consumer');
    template = Template.fromStack(stack);
    const id = logicalId(outbox.table);
    tableArn = { 'Fn::GetAtt': [id, 'Arn'] };
    streamArn = { 'Fn::GetAtt': [id, 'StreamArn'] };
  });

  it('declares the pk key, on-demand billing, a NEW_IMAGE stream, PITR, encryption and deletion protection, and no TTL', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      KeySchema: [{ AttributeName: OUTBOX_ATTRIBUTES.pk, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.Properties.TimeToLiveSpecification).toBeUndefined();
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(table.DeletionPolicy).toBe('Retain');
  });

  it('grants a consumer UpdateItem on the table and nothing else', () => {
    expect(allowedPairs(statementsOf(template, roles.consumer))).toEqual([
      `Allow dynamodb:UpdateItem on ${JSON.stringify(tableArn)}`,
    ]);
  });

  it('grants the relay item reads and writes on the table and the stream read on its stream only', () => {
    expect(allowedPairs(statementsOf(template, roles.relay))).toEqual(
      allowedPairs([
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'],
          Resource: tableArn,
        },
        {
          Effect: 'Allow',
          Action: [
            'dynamodb:DescribeStream',
            'dynamodb:GetRecords',
            'dynamodb:GetShardIterator',
            'dynamodb:ListStreams',
          ],
          Resource: streamArn,
        },
      ]),
    );
  });

  it("grants operators Scan, GetItem, UpdateItem and DeleteItem, item actions limited to one consumer's rows when named", () => {
    const operator = allowedPairs([
      {
        Effect: 'Allow',
        Action: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        Resource: tableArn,
      },
    ]);
    expect(allowedPairs(statementsOf(template, roles.operator))).toEqual(operator);
    const condition = {
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': ['queue#order-consumer#*', 'quarantine#order-consumer#*'],
      },
    };
    expect(allowedPairs(statementsOf(template, roles.scopedOperator))).toEqual(
      allowedPairs([
        { Effect: 'Allow', Action: 'dynamodb:Scan', Resource: tableArn },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
          Resource: tableArn,
          Condition: condition,
        },
      ]),
    );
  });
});

describe('OutboxTable props', () => {
  it('fails synth when the table would be destroyed yet deletion-protected', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    expect(() => new OutboxTable(stack, 'Outbox', { removalPolicy: RemovalPolicy.DESTROY })).toThrow(
      /OutboxTable Bad\/Outbox props are invalid:\n {2}- removalPolicy is DESTROY but deletionProtection is on/,
    );
  });

  it('fails synth on a recovery period outside 1-35 days', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Bad');
    expect(() => new OutboxTable(stack, 'Outbox', { pointInTimeRecoveryDays: 0 })).toThrow(
      /pointInTimeRecoveryDays is 0: set a whole number of days from 1 to 35/,
    );
  });
});
