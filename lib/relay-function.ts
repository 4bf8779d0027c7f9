/**
 * What the two outbox relays share: OutboxRelay (the DynamoDB outbox, invoked by the table's stream) and
 * PostgresOutboxRelay (the Postgres outbox, invoked on a schedule) deploy the same kind of function, with
 * the same role on Kafka, the same way to the brokers and the same cdk-nag acknowledgements. Each keeps
 * what only its store needs.
 */
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { RELAY_SETTINGS } from '../lambdas/outbox-relay/relay-settings.js';
import { HANDLER_BUNDLE } from './bundling.js';
import { handlerBundling } from './function-bundling.js';
import { RELAY_METRICS } from './monitoring/relay-metric-names.js';
import { mskTopicArn } from './msk-arns.js';
import { brokerPorts, type RelayCluster } from './outbox-relay-props.js';

/**
 * The relay's only Kafka actions, MSK IAM access control: connect to the cluster; describe and write the
 * named topics (WriteData requires DescribeTopic). No idempotent or transactional writes, no topic creation,
 * no reads. https://docs.aws.amazon.com/msk/latest/developerguide/kafka-actions.html
 */
export const RELAY_KAFKA_ACTIONS = {
  cluster: ['kafka-cluster:Connect'],
  topics: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
} as const;

/** Both relays produce with MSK IAM authentication; `none` is for running them here only. */
const KAFKA_AUTH: (typeof RELAY_SETTINGS.kafkaAuth.choices)[number] = 'iam';

/** The role and the log group a relay function runs with, made in `scope` as `Role` and `Logs`. */
export function relayRoleAndLogs(
  scope: Construct,
  roleDescription: string,
  logRetention: logs.RetentionDays | undefined,
): { role: iam.Role; logGroup: logs.LogGroup } {
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: roleDescription,
  });
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  logGroup.grantWrite(role);
  return { role, logGroup };
}

export interface RelayFunctionOptions {
  /** The package's relay entry for the store (lib/bundling.ts). */
  readonly entry: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly role: iam.IRole;
  readonly logGroup: logs.ILogGroup;
  readonly cluster: RelayCluster;
  /** The store's own variables, beside the Kafka ones and Powertools'. */
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * NodejsFunction's props for a relay: bundled as the consumer is, nodejs22.x on ARM64, JSON logs, and the
 * Kafka half of its settings (RELAY_SETTINGS). The caller adds its network placement and description.
 */
export function relayFunctionProps(options: RelayFunctionOptions): nodejs.NodejsFunctionProps {
  return {
    entry: options.entry,
    handler: HANDLER_BUNDLE.handlerExport,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role: options.role,
    logGroup: options.logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    systemLogLevelV2: lambda.SystemLogLevel.WARN,
    environment: {
      ...options.environment,
      [RELAY_SETTINGS.bootstrapServers.env]: options.cluster.bootstrapServers,
      [RELAY_SETTINGS.kafkaAuth.env]: KAFKA_AUTH,
      // The relay names its metrics' `service` dimension after its function (RELAY_METRICS.dimension).
      POWERTOOLS_SERVICE_NAME: 'outbox-relay',
      POWERTOOLS_METRICS_NAMESPACE: RELAY_METRICS.namespace,
      NODE_OPTIONS: '--enable-source-maps',
    },
    bundling: handlerBundling(),
  };
}

/** Connect on the cluster; DescribeTopic and WriteData on each named topic's ARN, nothing wider. */
export function grantRelayKafka(role: iam.IRole, clusterArn: string, topics: readonly string[]): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: [...RELAY_KAFKA_ACTIONS.cluster], resources: [clusterArn] }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...RELAY_KAFKA_ACTIONS.topics],
      resources: topics.map((topic) => mskTopicArn(clusterArn, topic)),
    }),
  );
}

/**
 * The brokers' ports out of the function's security group: to the brokers' group when given (which gets
 * the matching ingress), or else to the VPC's CIDR.
 */
export function allowBrokerEgress(
  group: ec2.SecurityGroup,
  cluster: RelayCluster,
  vpc: ec2.IVpc,
  ingressDescription: string,
): void {
  for (const port of brokerPorts(cluster.bootstrapServers)) {
    if (cluster.securityGroup === undefined) {
      group.addEgressRule(ec2.Peer.ipv4(vpc.vpcCidrBlock), ec2.Port.tcp(port), 'MSK brokers (IAM)');
    } else {
      cluster.securityGroup.connections.allowFrom(group, ec2.Port.tcp(port), ingressDescription);
    }
  }
}

export interface RelayNagReasons {
  /**
   * Whose VPC the function runs in, for the network interface actions on all resources; undefined
   * outside a VPC (no such actions).
   */
  readonly vpcOf: string | undefined;
  /** How the function is invoked, and where a failed invocation's work stays (Serverless-LambdaDLQ). */
  readonly invocation: string;
  /** Why there is no X-Ray tracing (Serverless-LambdaTracing). */
  readonly tracing: string;
}

/** The cdk-nag findings both relays' functions and roles have, acknowledged with the reasons given. */
export function acknowledgeRelayFunctionFindings(
  fn: nodejs.NodejsFunction,
  policy: Construct | undefined,
  reasons: RelayNagReasons,
): void {
  if (policy && reasons.vpcOf !== undefined) {
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `The relay runs in ${reasons.vpcOf} VPC: Lambda creates, describes and deletes its ENIs with the function's role, DescribeNetworkInterfaces only on all resources (https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html#configuration-vpc-permissions).`,
    });
  }
  const cfnFunction = fn.node.defaultChild as lambda.CfnFunction;
  const pinned =
    'nodejs22.x is pinned with the bundle target (lib/bundling.ts: node22); moving runtimes is a deliberate upgrade.';
  Validations.of(cfnFunction).acknowledge({ id: 'AwsSolutions-L1', reason: pinned });
  Validations.of(cfnFunction).acknowledge({ id: 'Serverless-LambdaLatestVersion', reason: pinned });
  Validations.of(cfnFunction).acknowledge({ id: 'Serverless-LambdaDLQ', reason: reasons.invocation });
  Validations.of(cfnFunction).acknowledge({ id: 'Serverless-LambdaTracing', reason: reasons.tracing });
}
