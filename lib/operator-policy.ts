import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { consumerRowPrefix, dedupRowKey, QUARANTINE_INDEX } from '../lambdas/core/inbox-rows.js';
import type { InboxTable } from './inbox-table.js';
import type { KafkaConsumer } from './kafka-consumer.js';
import { OUTBOX_OPERATOR_ACTIONS, type OutboxTable, outboxRowsCondition } from './outbox-table.js';

/**
 * Every IAM action `msk-inbox` (operator/) sends, by what it is for (docs/operate.md#permissions).
 * One list: the managed policy grants exactly these, and a test checks that the tool sends nothing else.
 * A transaction needs the action of each of its parts (PutItem, DeleteItem), not one of its own.
 */
export const OPERATOR_ACTIONS = {
  /** `quarantine list`: the sparse `quarantine` index. */
  listQuarantine: ['dynamodb:Query'],
  /** show, replay, discard and failed-batch records: the consumer's rows, read consistently, moved and marked. */
  consumerRows: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  /** `replay --function` and `--stack`: the deployed function, and its environment (the consumer's DEDUP_* settings). */
  invoke: ['lambda:InvokeFunction', 'lambda:GetFunctionConfiguration'],
  /** `failed-batches`: the on-failure bucket's objects. */
  failedBatches: ['s3:ListBucket', 's3:GetObject'],
  /** `--stack`: the stack's outputs. */
  stackOutputs: ['cloudformation:DescribeStacks'],
  /** `outbox list`, `quarantined`, `republish`: the consumer's outbox rows (docs/operate.md#outbox). */
  outbox: OUTBOX_OPERATOR_ACTIONS,
} as const satisfies Record<string, readonly string[]>;

export interface OperatorPolicyProps {
  readonly consumer: KafkaConsumer;
  /**
   * The DynamoDB inbox whose rows operators read and move.
   * @default - the consumer's own; none for a Postgres inbox (its login is allowed instead)
   */
  readonly inboxTable?: InboxTable;
  /**
   * The bucket holding the mapping's failed batches.
   * @default - the consumer's own failure bucket, where it has one
   */
  readonly failureBucket?: s3.IBucket;
  /**
   * Allow `--stack` on this stack (cloudformation:DescribeStacks on it).
   * @default true
   */
  readonly describeStack?: boolean;
}

/**
 * A managed policy for the operators' role: what `msk-inbox` needs for one consumer, nothing else. Rows
 * and the quarantine index are limited to the consumer's own (`dynamodb:LeadingKeys`), so operators of
 * one consumer of a shared inbox table can neither read nor change another's. With a Postgres inbox it allows the consumer's own
 * login (rds-db:connect as its user, or read on its secret), as `msk-inbox --stack` connects as the
 * consumer does: what that user may do in the database is the database's grants. `quarantine replay --handler` runs the consumer's code with the
 * operator's credentials, and so needs the consumer's own permissions besides (docs/operate.md#permissions).
 */
export class OperatorPolicy extends Construct {
  public readonly policy: iam.ManagedPolicy;

  public constructor(scope: Construct, id: string, props: OperatorPolicyProps) {
    super(scope, id);
    const { consumer } = props;
    const inboxTable = props.inboxTable ?? consumer.inboxTable;
    const statements: iam.PolicyStatement[] = [];
    if (inboxTable !== undefined) statements.push(...inboxStatements(consumer, inboxTable));
    // A Postgres inbox: the tool logs in as the consumer does (docs/operate.md#postgres).
    if (consumer.postgres !== undefined) statements.push(...consumer.postgres.loginStatements());
    if (consumer.outbox !== undefined) statements.push(...outboxStatements(consumer, consumer.outbox));
    statements.push(
      new iam.PolicyStatement({
        sid: 'Invoke',
        actions: [...OPERATOR_ACTIONS.invoke],
        resources: [consumer.function.functionArn],
      }),
    );
    const bucket: s3.IBucket | undefined = props.failureBucket ?? consumer.failureBucket;
    if (bucket !== undefined) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'FailedBatchesList',
          actions: [OPERATOR_ACTIONS.failedBatches[0]],
          resources: [bucket.bucketArn],
        }),
        new iam.PolicyStatement({
          sid: 'FailedBatchesRead',
          actions: [OPERATOR_ACTIONS.failedBatches[1]],
          resources: [bucket.arnForObjects('*')],
        }),
      );
    }
    if (props.describeStack ?? true) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'StackOutputs',
          actions: [...OPERATOR_ACTIONS.stackOutputs],
          resources: [Stack.of(this).stackId],
        }),
      );
    }
    this.policy = new iam.ManagedPolicy(this, 'Policy', {
      description: `msk-inbox for consumer ${consumer.consumerName}: quarantine and failed batches (list, show, replay, discard)`,
      statements,
    });
    if (bucket !== undefined) {
      Validations.of(this.policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${objectsFinding(bucket)}]`,
        reason:
          'Each failed batch is an object under a key Lambda chooses; operators read them with s3:GetObject on the failure bucket objects only (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).',
      });
    }
  }
}

/**
 * Operators' access to one consumer's rows of a DynamoDB inbox. The index projects whole rows (raw
 * records): a Query is limited to this consumer's partition of it, the index's partition key being the
 * consumer's name (docs/aws-facts.md#iam-leading-keys).
 */
function inboxStatements(consumer: KafkaConsumer, inboxTable: InboxTable): iam.PolicyStatement[] {
  const table = inboxTable.table;
  return [
    new iam.PolicyStatement({
      sid: 'ListQuarantine',
      actions: [...OPERATOR_ACTIONS.listQuarantine],
      resources: [`${table.tableArn}/index/${QUARANTINE_INDEX.name}`],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [consumer.consumerName] },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ConsumerRows',
      actions: [...OPERATOR_ACTIONS.consumerRows],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': consumerRowKeyPatterns(consumer.consumerName),
        },
      },
    }),
  ];
}

/**
 * Operators' access to one consumer's outbox rows. A Scan reads every consumer's rows whatever a
 * LeadingKeys condition says (docs/aws-facts.md#iam-dynamodbleadingkeys), so it is granted apart; the
 * item actions are limited to the consumer's `queue#` and `quarantine#` rows.
 */
function outboxStatements(consumer: KafkaConsumer, outbox: OutboxTable): iam.PolicyStatement[] {
  const [scan, ...itemActions] = OPERATOR_ACTIONS.outbox;
  return [
    new iam.PolicyStatement({ sid: 'OutboxList', actions: [scan], resources: [outbox.tableArn] }),
    new iam.PolicyStatement({
      sid: 'OutboxRows',
      actions: itemActions,
      resources: [outbox.tableArn],
      conditions: outboxRowsCondition(consumer.consumerName),
    }),
  ];
}

/** The partition keys of one consumer's rows: its dedup rows and its `<consumer>!...` rows (quarantine, replays). */
export function consumerRowKeyPatterns(consumerName: string): string[] {
  return [dedupRowKey(consumerName, '*'), `${consumerRowPrefix(consumerName)}*`];
}

/** How cdk-nag names `<bucket>/*`: the bucket's logical id where it is in this app, else its ARN. */
function objectsFinding(bucket: s3.IBucket): string {
  const cfn = bucket.node.defaultChild;
  return cfn instanceof CfnElement
    ? `<${Stack.of(cfn).resolve(cfn.logicalId)}.Arn>/*`
    : `${Stack.of(bucket).resolve(bucket.bucketArn)}/*`;
}
