import { Duration, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELAY_SETTINGS } from '../lambdas/outbox-relay/relay-settings.js';
import { RELAY_STREAM_FILTER } from '../lambdas/outbox-relay/relay-stream-filter.js';
import { RELAY_ENTRY } from './bundling.js';
import { throwIfProblems } from './invalid-props-error.js';
import {
  type OutboxRelayProps,
  type RelayCluster,
  relayProblems,
  resolveRelaySettings,
} from './outbox-relay-props.js';
import type { OutboxTable } from './outbox-table.js';
import { FUNCTION_VPC_ACTIONS } from './postgres-database.js';
import {
  acknowledgeRelayFunctionFindings,
  allowBrokerEgress,
  grantRelayKafka,
  relayFunctionProps,
  relayRoleAndLogs,
} from './relay-function.js';

export type { OutboxRelayProps, RelayCluster } from './outbox-relay-props.js';
export { RELAY_KAFKA_ACTIONS } from './relay-function.js';

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

    const { role, logGroup } = relayRoleAndLogs(
      this,
      'Outbox relay: reads the outbox stream, writes the named MSK topics',
      props.logRetention,
    );
    this.role = role;
    this.logGroup = logGroup;
    this.securityGroup = cluster.vpc === undefined ? undefined : this.brokerAccess(cluster, cluster.vpc);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...relayFunctionProps({
        entry: RELAY_ENTRY,
        memorySize: settings.memorySize,
        timeout: settings.timeout,
        role,
        logGroup,
        cluster,
        environment: { [RELAY_SETTINGS.outboxTableName.env]: outbox.tableName },
      }),
      ...(cluster.vpc === undefined || this.securityGroup === undefined
        ? {}
        : { vpc: cluster.vpc, vpcSubnets: cluster.vpcSubnets, securityGroups: [this.securityGroup] }),
      description: `Publishes the outbox's appended events to ${this.topics.join(', ')}`.slice(0, 256),
    });

    outbox.grantRelay(this.role);
    grantRelayKafka(this.role, cluster.clusterArn, this.topics);
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
    allowBrokerEgress(group, cluster, vpc, 'Outbox relay to MSK (IAM)');
    return group;
  }

  private acknowledgeNagFindings(policy: Construct | undefined): void {
    acknowledgeRelayFunctionFindings(this.function, policy, {
      vpcOf: this.securityGroup === undefined ? undefined : "the brokers'",
      invocation:
        "Invoked synchronously by the outbox stream's event source mapping only, never asynchronously: batches it gives up on go to the mapping's on-failure queue.",
      tracing:
        "Stream records carry no trace context; the relay's EMF metrics, JSON logs and RelayMonitoring's dashboard cover each batch.",
    });
    const destination =
      "This queue is the relay mapping's on-failure destination, itself the dead-letter store: its messages (shard and sequence numbers) have nowhere further to go, and the events stay in the outbox table.";
    Validations.of(this.failureQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: destination });
    Validations.of(this.failureQueue).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: destination });
  }
}
