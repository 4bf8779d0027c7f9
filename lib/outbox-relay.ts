import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELAY_SETTINGS } from '../lambdas/outbox-relay/relay-settings.js';
import { RELAY_STREAM_FILTER } from '../lambdas/outbox-relay/relay-stream-filter.js';
import { HANDLER_BUNDLE, RELAY_ENTRY } from './bundling.js';
import { handlerBundling } from './function-bundling.js';
import { throwIfProblems } from './invalid-props-error.js';
import { RELAY_METRICS } from './monitoring/relay-metric-names.js';
import { mskTopicArn } from './msk-arns.js';
import {
  brokerPorts,
  type OutboxRelayProps,
  type RelayCluster,
  relayProblems,
  resolveRelaySettings,
} from './outbox-relay-props.js';
import type { OutboxTable } from './outbox-table.js';
import { FUNCTION_VPC_ACTIONS } from './postgres-database.js';

export type { OutboxRelayProps, RelayCluster } from './outbox-relay-props.js';

/**
 * The relay's only Kafka actions, MSK IAM access control: connect to the cluster; describe and write the
 * named topics (WriteData requires DescribeTopic). No idempotent or transactional writes, no topic creation,
 * no reads. https://docs.aws.amazon.com/msk/latest/developerguide/kafka-actions.html
 */
export const RELAY_KAFKA_ACTIONS = {
  cluster: ['kafka-cluster:Connect'],
  topics: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
} as const;

const KAFKA_AUTH: (typeof RELAY_SETTINGS.kafkaAuth.choices)[number] = 'iam';

/**
 * The outbox relay (docs/outbox.md#the-relay): the package's relay function, bundled like the consumer,
 * invoked by the outbox table's stream for the consumers' appends only, producing their events to MSK with
 * IAM authentication and removing what it published. Its role may write the named topics and nothing else
 * on Kafka. Batches Lambda gives up on leave their records' shard and sequence numbers in an encrypted
 * queue; the events themselves stay in the outbox table.
 */
export class OutboxRelay extends Construct {
  public readonly outbox: OutboxTable;
  /** The topics it may write. */
  public readonly topics: readonly string[];
  public readonly function: nodejs.NodejsFunction;
  public readonly role: iam.Role;
  public readonly logGroup: logs.LogGroup;
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** Stream batches Lambda gave up on (their shard and sequence numbers, not the events). */
  public readonly failureQueue: sqs.Queue;
  /** The function's security group, in the brokers' VPC; undefined outside a VPC. */
  public readonly securityGroup: ec2.SecurityGroup | undefined;
  public readonly timeout: Duration;

  public constructor(scope: Construct, id: string, props: OutboxRelayProps) {
    super(scope, id);
    const settings = resolveRelaySettings(props);
    throwIfProblems(`OutboxRelay ${this.node.path} props are invalid`, relayProblems(props, settings));
    const { outbox, cluster } = props;
    this.outbox = outbox;
    this.topics = [...props.topics];
    this.timeout = settings.timeout;

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Outbox relay: reads the outbox stream, writes the named MSK topics',
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.logGroup.grantWrite(this.role);
    this.securityGroup = cluster.vpc === undefined ? undefined : this.brokerAccess(cluster, cluster.vpc);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: RELAY_ENTRY,
      handler: HANDLER_BUNDLE.handlerExport,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: settings.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      ...(cluster.vpc === undefined || this.securityGroup === undefined
        ? {}
        : { vpc: cluster.vpc, vpcSubnets: cluster.vpcSubnets, securityGroups: [this.securityGroup] }),
      description: `Publishes the outbox's appended events to ${this.topics.join(', ')}`.slice(0, 256),
      environment: {
        [RELAY_SETTINGS.outboxTableName.env]: outbox.tableName,
        [RELAY_SETTINGS.bootstrapServers.env]: cluster.bootstrapServers,
        [RELAY_SETTINGS.kafkaAuth.env]: KAFKA_AUTH,
        POWERTOOLS_SERVICE_NAME: 'outbox-relay',
        POWERTOOLS_METRICS_NAMESPACE: RELAY_METRICS.namespace,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: handlerBundling(),
    });

    outbox.grantRelay(this.role);
    this.grantKafka(cluster.clusterArn);
    if (cluster.vpc !== undefined) {
      // A function in a VPC: Lambda manages its network interfaces with the function's role.
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: [...FUNCTION_VPC_ACTIONS], resources: ['*'] }),
      );
    }

    // Metadata only (shard, sequence numbers): the events stay in their queue rows, which the next append
    // to the same key (or an operator's republish) sends again (docs/outbox.md#when-the-relay-gives-up).
    this.failureQueue = new sqs.Queue(this, 'FailedBatches', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'Mapping', {
      target: this.function,
      eventSourceArn: outbox.tableStreamArn,
      // The relay may start after events were appended: read what the stream still holds (24 hours).
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: settings.batchSize,
      parallelizationFactor: settings.parallelizationFactor,
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      // Finite on purpose. -1 (Lambda's default) retries until the stream trims the record at 24 hours and
      // then drops it with no word to the failure queue; a finite bound, with maxRecordAge short of those
      // 24 hours, sends it there first, where its alarm fires. Nothing is lost either way: the events stay
      // in their queue rows. 10,000 is the largest finite count, so maxRecordAge is the bound that acts.
      // https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html
      retryAttempts: settings.retryAttempts,
      maxRecordAge: settings.maxRecordAge,
      onFailure: new SqsDlq(this.failureQueue),
      // Only the consumers' appends: the relay's own writes (`published`, `quarantined`) and removals
      // (no new image) never invoke it (docs/aws-facts.md#the-outbox-relays-stream-and-msk-writes).
      filters: [lambda.FilterCriteria.filter(RELAY_STREAM_FILTER)],
      metricsConfig: { metrics: [lambda.MetricType.EVENT_COUNT] },
    });
    // Lambda checks the role's stream read when it creates the mapping: create it after the policy.
    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (policy) this.eventSourceMapping.node.addDependency(policy);
    this.acknowledgeNagFindings(policy);
  }

  /** The `EventSourceMappingUUID` dimension of the mapping's metrics. */
  public get eventSourceMappingUuid(): string {
    return this.eventSourceMapping.eventSourceMappingId;
  }

  /** Connect on the cluster; DescribeTopic and WriteData on each named topic's ARN, nothing wider. */
  private grantKafka(clusterArn: string): void {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...RELAY_KAFKA_ACTIONS.cluster], resources: [clusterArn] }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [...RELAY_KAFKA_ACTIONS.topics],
        resources: this.topics.map((topic) => mskTopicArn(clusterArn, topic)),
      }),
    );
  }

  /**
   * The function's own security group: HTTPS out (DynamoDB's endpoint, public or a gateway endpoint's
   * prefix list, has no address known here) and the brokers' ports, to their group when given (which gets
   * the matching ingress) or else to the VPC's CIDR.
   */
  private brokerAccess(cluster: RelayCluster, vpc: ec2.IVpc): ec2.SecurityGroup {
    const group = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc,
      allowAllOutbound: false,
      description: 'Outbox relay function: to the MSK brokers and DynamoDB',
    });
    group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to DynamoDB');
    for (const port of brokerPorts(cluster.bootstrapServers)) {
      if (cluster.securityGroup === undefined) {
        group.addEgressRule(ec2.Peer.ipv4(vpc.vpcCidrBlock), ec2.Port.tcp(port), 'MSK brokers (IAM)');
      } else {
        cluster.securityGroup.connections.allowFrom(group, ec2.Port.tcp(port), 'Outbox relay to MSK (IAM)');
      }
    }
    return group;
  }

  private acknowledgeNagFindings(policy: Construct | undefined): void {
    if (policy && this.securityGroup !== undefined) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "The relay runs in the brokers' VPC: Lambda creates, describes and deletes its ENIs with the function's role, DescribeNetworkInterfaces only on all resources (https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html#configuration-vpc-permissions).",
      });
    }
    const destination =
      "This queue is the relay mapping's on-failure destination, itself the dead-letter store: its messages (shard and sequence numbers) have nowhere further to go, and the events stay in the outbox table.";
    Validations.of(this.failureQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: destination });
    Validations.of(this.failureQueue).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: destination });
    const fn = this.function.node.defaultChild as lambda.CfnFunction;
    const pinned =
      'nodejs22.x is pinned with the bundle target (lib/bundling.ts: node22); moving runtimes is a deliberate upgrade.';
    Validations.of(fn).acknowledge({ id: 'AwsSolutions-L1', reason: pinned });
    Validations.of(fn).acknowledge({ id: 'Serverless-LambdaLatestVersion', reason: pinned });
    Validations.of(fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "Invoked synchronously by the outbox stream's event source mapping only, never asynchronously: batches it gives up on go to the mapping's on-failure queue.",
    });
    Validations.of(fn).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        "Stream records carry no trace context; the relay's EMF metrics, JSON logs and RelayMonitoring's dashboard cover each batch.",
    });
  }
}
