import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { INBOX_ATTRIBUTES, QUARANTINE_INDEX } from '../lambdas/core/inbox-rows.js';
import { throwIfProblems } from './invalid-props-error.js';

/**
 * The consumer's only requests on the inbox: claims, completions, releases and quarantine rows, and one
 * consistent read of a quarantine row (whether a record refused during a systemic streak was quarantined
 * by an earlier delivery).
 */
export const INBOX_CONSUMER_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:GetItem',
] as const;

export interface InboxTableProps {
  /**
   * Physical table name. Several consumers can share one table: rows are scoped by consumer name.
   * @default - CloudFormation generates a unique name
   */
  readonly tableName?: string;
  /**
   * What happens to the table, and the dedup history in it, when it leaves the stack.
   * Losing it means records redelivered later are applied again.
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

/** What a table's retention props may not be (InboxTable's and OutboxTable's), each saying what to change. */
export function retentionProblems(
  removalPolicy: RemovalPolicy,
  deletionProtection: boolean,
  pitrDays: number,
): string[] {
  return [
    ...(removalPolicy === RemovalPolicy.DESTROY && deletionProtection
      ? [
          'removalPolicy is DESTROY but deletionProtection is on: CloudFormation cannot delete a protected table; also set deletionProtection: false, or keep RETAIN',
        ]
      : []),
    ...(Number.isInteger(pitrDays) && pitrDays >= 1 && pitrDays <= 35
      ? []
      : [`pointInTimeRecoveryDays is ${pitrDays}: set a whole number of days from 1 to 35`]),
  ];
}

/**
 * The inbox (docs/design.md#the-inbox-item): `pk` string key, TTL on `expires_at`, on-demand,
 * point-in-time recovery, encrypted with the AWS-managed key, retained and deletion-protected by default,
 * and a sparse index listing each consumer's QUARANTINED rows.
 */
export class InboxTable extends Construct {
  public readonly table: dynamodb.Table;

  public constructor(scope: Construct, id: string, props: InboxTableProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const deletionProtection = props.deletionProtection ?? true;
    const pitrDays = props.pointInTimeRecoveryDays ?? 35;
    throwIfProblems(
      `InboxTable ${this.node.path} props are invalid`,
      retentionProblems(removalPolicy, deletionProtection, pitrDays),
    );

    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: INBOX_ATTRIBUTES.pk, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // TTL deletion is lazy (typically within days): the claim condition treats expired rows as absent.
      // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html
      timeToLiveAttribute: INBOX_ATTRIBUTES.expiresAt,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: pitrDays },
      // The AWS-managed key (aws/dynamodb) needs no kms:* grant for principals that may use the table.
      // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/EncryptionAtRest.html
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection,
      removalPolicy,
    });
    // Only quarantine rows carry the index keys, so the index lists nothing else (a sparse index).
    this.table.addGlobalSecondaryIndex({
      indexName: QUARANTINE_INDEX.name,
      partitionKey: { name: QUARANTINE_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: QUARANTINE_INDEX.sortKey, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }

  public get tableName(): string {
    return this.table.tableName;
  }

  public get tableArn(): string {
    return this.table.tableArn;
  }

  /** What a consumer needs: PutItem, UpdateItem and DeleteItem on the table (not its index), and no reads. */
  public grantConsumerAccess(grantee: iam.IGrantable): iam.Grant {
    // TransactWriteItems is authorized per underlying action, so these cover the inbox row in a transaction.
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...INBOX_CONSUMER_ACTIONS],
      resourceArns: [this.table.tableArn],
    });
  }

  /** For operators' tooling: Query on the quarantine index only. */
  public grantQuarantineRead(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:Query'],
      resourceArns: [`${this.table.tableArn}/index/${QUARANTINE_INDEX.name}`],
    });
  }
}
