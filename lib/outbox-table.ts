import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { OUTBOX_ATTRIBUTES, outboxRowPrefix } from '../lambdas/core/outbox-rows.js';
import { retentionProblems } from './inbox-table.js';
import { throwIfProblems } from './invalid-props-error.js';

/**
 * The consumer's only request on the outbox: the appends, Update actions inside the TransactWriteItems that
 * writes its inbox row. A transaction is authorized action by action, with each part's own permission
 * (docs/aws-facts.md#iam-dynamodbleadingkeys), so UpdateItem alone covers them.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html
 */
export const OUTBOX_APPEND_ACTIONS = ['dynamodb:UpdateItem'] as const;

/** The relay's requests on the table: read a queue row, remove what it published, write quarantine rows. */
export const OUTBOX_RELAY_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:PutItem',
] as const;

/**
 * What Lambda's stream event source mapping reads with the function's role, on the table's stream only
 * (DynamoDB's own example policy names the stream, not `*`).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/iam-policy-example-lamda-process-dynamodb-streams.html
 */
export const OUTBOX_STREAM_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
] as const;

/**
 * The operator tool's requests (docs/operate.md#outbox): list the rows (Scan by prefix), read a quarantine
 * row, republish it (a TransactWriteItems of the queue row's Update and the quarantine row's Delete, each
 * authorized by its own action) or touch a queue row (Update). Nothing is put whole.
 */
export const OUTBOX_OPERATOR_ACTIONS = [
  'dynamodb:Scan',
  'dynamodb:GetItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/** What an OutboxTable takes: its name and how it is kept. */
export interface OutboxTableProps {
  /**
   * Physical table name. Several consumers can share one table: rows are scoped by consumer name.
   * @default - CloudFormation generates a unique name
   */
  readonly tableName?: string;
  /**
   * What happens to the table, and the unpublished events in it, when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Refuse `DeleteTable` until this is turned off.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Days of point-in-time recovery (1-35).
   * @default 35
   */
  readonly pointInTimeRecoveryDays?: number;
}

/**
 * The outbox (docs/outbox.md#the-outbox-table): `pk` string key, on-demand, point-in-time recovery,
 * encrypted with the AWS-managed key, retained and deletion-protected by default, and a stream of new
 * images, which the relay's event source mapping filters to the consumers' appends (OutboxRelay).
 */
export class OutboxTable extends Construct {
  public readonly table: dynamodb.Table;

  public constructor(scope: Construct, id: string, props: OutboxTableProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const deletionProtection = props.deletionProtection ?? true;
    const pitrDays = props.pointInTimeRecoveryDays ?? 35;
    throwIfProblems(
      `OutboxTable ${this.node.path} props are invalid`,
      retentionProblems(removalPolicy, deletionProtection, pitrDays),
    );

    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: OUTBOX_ATTRIBUTES.pk, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // The relay's filter reads `change` in the new image (docs/aws-facts.md#the-outbox-relays-stream-and-msk-writes);
      // the events it publishes are in that image too.
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: pitrDays },
      // The AWS-managed key (aws/dynamodb) needs no kms:* grant for principals that may use the table.
      // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/EncryptionAtRest.html
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection,
      removalPolicy,
    });
  }

  public get tableName(): string {
    return this.table.tableName;
  }

  public get tableArn(): string {
    return this.table.tableArn;
  }

  /** The table's stream (NEW_IMAGE), which the relay reads. */
  public get tableStreamArn(): string {
    const arn = this.table.tableStreamArn;
    if (arn === undefined) throw new Error(`${this.node.path} has no stream`);
    return arn;
  }

  /** What a consumer needs to append in its transaction: UpdateItem on the table, nothing else. */
  public grantAppend(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...OUTBOX_APPEND_ACTIONS],
      resourceArns: [this.table.tableArn],
    });
  }

  /** What the relay needs: GetItem, UpdateItem, DeleteItem and PutItem on the table, and its stream read. */
  public grantRelay(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...OUTBOX_RELAY_ACTIONS],
      resourceArns: [this.table.tableArn],
    }).combine(
      iam.Grant.addToPrincipal({
        grantee,
        actions: [...OUTBOX_STREAM_ACTIONS],
        resourceArns: [this.tableStreamArn],
      }),
    );
  }

  /**
   * For the operator tool: Scan, GetItem, UpdateItem and DeleteItem on the table. With `consumerName`, the
   * item actions are limited to that consumer's rows (`dynamodb:LeadingKeys`,
   * docs/aws-facts.md#iam-dynamodbleadingkeys); a Scan reads every consumer's rows whatever the condition.
   */
  public grantOperator(grantee: iam.IGrantable, consumerName?: string): iam.Grant {
    const [scan, ...itemActions] = OUTBOX_OPERATOR_ACTIONS;
    const items = iam.Grant.addToPrincipal({
      grantee,
      actions: itemActions,
      resourceArns: [this.table.tableArn],
      ...(consumerName === undefined
        ? {}
        : {
            conditions: outboxRowsCondition(consumerName),
          }),
    });
    return items.combine(
      iam.Grant.addToPrincipal({ grantee, actions: [scan], resourceArns: [this.table.tableArn] }),
    );
  }
}

/** The partition keys of one consumer's outbox rows (its queue and quarantine rows), for `dynamodb:LeadingKeys`. */
export function outboxRowsCondition(consumerName: string): Record<string, Record<string, string[]>> {
  return {
    'ForAllValues:StringLike': {
      'dynamodb:LeadingKeys': [
        `${outboxRowPrefix('queue', consumerName)}*`,
        `${outboxRowPrefix('quarantine', consumerName)}*`,
      ],
    },
  };
}
