import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ConsumerMonitoring } from '../../lib/consumer-monitoring.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { KafkaConsumer, type KafkaSource } from '../../lib/kafka-consumer.js';
import type { OpenTelemetryProps } from '../../lib/open-telemetry.js';
import { addOperatorOutputs } from '../../lib/operator-outputs.js';
import { OperatorPolicy } from '../../lib/operator-policy.js';
import { ORDER_CONSUMER_ENTRY } from './order-consumer-entry.js';

export interface MskInboxStackProps extends StackProps {
  /** The Kafka cluster the orders come from. */
  readonly source: KafkaSource;
  /** The orders topic. */
  readonly topic: string;
  /** The consumer group the event source mapping joins. */
  readonly consumerGroupId: string;
  /**
   * Scopes the inbox rows and names the metrics.
   * @default 'order-consumer'
   */
  readonly consumerName?: string;
  /**
   * An address subscribed to the alarm topic.
   * @default - no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Exports the order consumer's spans (`-c adotLayerArn=...`: the ADOT layer for the Region, arm64).
   * @default - no layer: the handler's spans record nowhere
   */
  readonly openTelemetry?: OpenTelemetryProps;
  /**
   * The handler source; tests substitute a fixture.
   * @default ORDER_CONSUMER_ENTRY
   */
  readonly entry?: string;
}

/** The sample order consumer: inbox table, orders table, function and event source mapping, dashboard and alarms. */
export class MskInboxStack extends Stack {
  public readonly inbox: InboxTable;
  public readonly ordersTable: dynamodb.Table;
  public readonly consumer: KafkaConsumer;
  public readonly monitoring: ConsumerMonitoring;
  /** Attach to the operators' role: what `msk-inbox` needs for this consumer (docs/operate.md#permissions). */
  public readonly operatorPolicy: OperatorPolicy;

  public constructor(scope: Construct, id: string, props: MskInboxStackProps) {
    super(scope, id, props);
    this.inbox = new InboxTable(this, 'Inbox');
    this.ordersTable = new dynamodb.Table(this, 'Orders', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.consumer = new KafkaConsumer(this, 'OrderConsumer', {
      consumerName: props.consumerName ?? 'order-consumer',
      source: props.source,
      topic: props.topic,
      consumerGroupId: props.consumerGroupId,
      inboxTable: this.inbox,
      entry: props.entry ?? ORDER_CONSUMER_ENTRY,
      environment: { APP_TABLE_NAME: this.ordersTable.tableName },
      ...(props.openTelemetry ? { openTelemetry: props.openTelemetry } : {}),
    });
    // The sample's effect only updates order totals and balances: that action, on that table.
    this.consumer.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [this.ordersTable.tableArn] }),
    );
    this.monitoring = new ConsumerMonitoring(this, 'Monitoring', {
      consumer: this.consumer,
      tables: { inbox: this.inbox.table, orders: this.ordersTable },
      alarmEmail: props.alarmEmail,
    });
    this.operatorPolicy = new OperatorPolicy(this, 'Operators', {
      consumer: this.consumer,
      inboxTable: this.inbox,
    });

    // The outputs msk-inbox --stack reads (InboxTableName, FunctionName, ConsumerName, FailedBatchesBucket).
    addOperatorOutputs(this.consumer);
    new CfnOutput(this, 'OrdersTableName', { value: this.ordersTable.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.alarmTopic.topicArn });
    new CfnOutput(this, 'OperatorPolicyArn', { value: this.operatorPolicy.policy.managedPolicyArn });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }
}
