import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import { beforeAll, describe, expect, it } from 'vitest';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps } from '../../lib/kafka-consumer.js';
import { addOperatorOutputs } from '../../lib/operator-outputs.js';
import { OperatorPolicy } from '../../lib/operator-policy.js';
import { OutboxTable } from '../../lib/outbox-table.js';
import { STACK_OUTPUT_KEYS } from '../../operator/stack-output-keys.js';
import {
  allowedPairs,
  EXAMPLE_CLUSTER_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  policyStatements,
  projectApp,
  type Resource,
} from './support.js';

const COMMON = {
  consumerName: 'order-consumer',
  source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
  topic: 'orders',
  consumerGroupId: 'order-consumer',
  entry: FIXTURE_ENTRY,
} as const satisfies Partial<KafkaConsumerProps>;

function variablesOf(template: Template): Record<string, unknown> {
  const fn = onlyResource(template, 'AWS::Lambda::Function');
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

describe('KafkaConsumer with an outbox', () => {
  let template: Template;
  let outboxId: string;

  beforeAll(() => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Orders');
    const outbox = new OutboxTable(stack, 'Outbox');
    const consumer = new KafkaConsumer(stack, 'Consumer', {
      ...COMMON,
      inboxTable: new InboxTable(stack, 'Inbox'),
      outbox,
    });
    new OperatorPolicy(stack, 'Operators', { consumer });
    addOperatorOutputs(consumer);
    template = Template.fromStack(stack);
    outboxId = logicalId(outbox.table);
  });

  it('gives the function OUTBOX_TABLE_NAME, the outbox table', () => {
    expect(variablesOf(template).OUTBOX_TABLE_NAME).toEqual({ Ref: outboxId });
  });

  it('grants UpdateItem on the outbox table and nothing else on it', () => {
    const onOutbox = allowedPairs(policyStatements(template)).filter((pair) => pair.includes(outboxId));
    expect(onOutbox).toEqual([`Allow dynamodb:UpdateItem on {"Fn::GetAtt":["${outboxId}","Arn"]}`]);
  });

  it('declares the OutboxTableName output msk-inbox outbox --stack reads (docs/operate.md#outbox)', () => {
    expect(template.toJSON().Outputs[STACK_OUTPUT_KEYS.outboxTableName]).toEqual({
      Value: { Ref: outboxId },
    });
  });

  it("lets operators Scan the outbox and get, update and delete only the consumer's rows of it", () => {
    const statements = (
      Object.values(template.findResources('AWS::IAM::ManagedPolicy')) as Resource[]
    ).flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
    const arn = { 'Fn::GetAtt': [outboxId, 'Arn'] };
    const rows = {
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': ['queue#order-consumer#*', 'quarantine#order-consumer#*'],
      },
    };
    expect(allowedPairs(statements).filter((pair) => pair.includes(outboxId))).toEqual(
      allowedPairs([
        { Effect: 'Allow', Action: 'dynamodb:Scan', Resource: arn },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
          Resource: arn,
          Condition: rows,
        },
      ]),
    );
  });
});

describe('KafkaConsumer without an outbox', () => {
  it('has no OUTBOX_TABLE_NAME, and synth does not require one', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Orders');
    new KafkaConsumer(stack, 'Consumer', { ...COMMON, inboxTable: new InboxTable(stack, 'Inbox') });
    expect(variablesOf(Template.fromStack(stack))).not.toHaveProperty('OUTBOX_TABLE_NAME');
  });
});

describe('KafkaConsumer with an outbox and a Postgres inbox', () => {
  it('is refused at synth with one line saying what to change', () => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Payments', {
      env: { account: '123456789012', region: 'us-east-1' },
    });
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a'],
      privateSubnetIds: ['subnet-0private0000000a'],
    });
    const securityGroups = [
      ec2.SecurityGroup.fromSecurityGroupId(stack, 'DatabaseSg', 'sg-0database00000000'),
    ];
    const proxy = rds.DatabaseProxy.fromDatabaseProxyAttributes(stack, 'Proxy', {
      dbProxyName: 'payments-proxy',
      dbProxyArn: 'arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123456789abcdef0',
      endpoint: 'payments-proxy.proxy-abcdefghijkl.us-east-1.rds.amazonaws.com',
      securityGroups,
    });
    const refused = (() => {
      try {
        new KafkaConsumer(stack, 'Consumer', {
          ...COMMON,
          outbox: new OutboxTable(stack, 'Outbox'),
          postgres: {
            database: { kind: 'proxy', proxy, securityGroups },
            vpc,
            databaseName: 'payments',
            auth: { iam: { user: 'payments_consumer' } },
          },
        });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(InvalidPropsError);
    expect((refused as InvalidPropsError).problems).toEqual([
      "outbox is given with postgres: on Postgres the outbox lives in the consumer's schema (an OutboxTable is DynamoDB's); remove outbox, and publish the schema's outbox with PostgresOutboxRelay",
    ]);
  });
});
