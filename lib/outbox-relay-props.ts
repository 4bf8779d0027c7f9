/**
 * What an OutboxRelay takes, its defaults, and the checks that fail synth with a message saying what to
 * change (docs/outbox.md#the-relay).
 */
import { Duration, Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { KAFKA_TOPIC } from './kafka-names.js';
import { isMskClusterArn } from './msk-arns.js';
import type { OutboxTable } from './outbox-table.js';

/** The MSK cluster the relay produces to, with IAM authentication, and where its brokers are. */
export interface RelayCluster {
  /**
   * `arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>`: the relay may connect to it and write to
   * `topics` of it, nothing else.
   */
  readonly clusterArn: string;
  /**
   * The IAM bootstrap brokers, `host:port,host:port`: GetBootstrapBrokers' `BootstrapBrokerStringSaslIam`
   * (port 9098; `BootstrapBrokerStringPublicSaslIam`, port 9198, with public access).
   */
  readonly bootstrapServers: string;
  /**
   * The brokers' VPC: the function runs in it, with a security group of its own that allows HTTPS out
   * (DynamoDB, through a gateway endpoint or a NAT gateway) and the brokers' ports.
   * @default - outside any VPC: only for a cluster with public access
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The function's subnets in `vpc`.
   * @default - CDK's default selection: the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The brokers' security group, given an ingress rule from the relay's on the brokers' port. Only with `vpc`.
   * @default - none: the relay may reach the VPC's CIDR on the brokers' port; the brokers' group must let it in
   */
  readonly securityGroup?: ec2.ISecurityGroup;
}

/** What an OutboxRelay takes: the outbox, the cluster and topics, and its stream mapping's tuning. */
export interface OutboxRelayProps {
  /** The outbox table whose stream the relay reads, and whose published events it removes. */
  readonly outbox: OutboxTable;
  /** The MSK cluster it produces to. */
  readonly cluster: RelayCluster;
  /**
   * Every topic the consumers' effects emit to: the relay gets DescribeTopic and WriteData on these only.
   * An event for another topic is refused by the brokers and quarantined by the relay.
   */
  readonly topics: readonly string[];
  /**
   * Stream records per invocation (1-10,000).
   * @default 100 (Lambda's default for DynamoDB streams)
   */
  readonly batchSize?: number;
  /**
   * Batches of one stream shard processed at once (1-10). Records of one item (one queue row: a consumer's
   * topic and key) stay in order whatever this is.
   * @default 1: one producer connection per shard; raise it when the relay's iterator age grows
   */
  readonly parallelizationFactor?: number;
  /**
   * Retries of a failing batch before its records' metadata goes to the failure queue (0-10,000; never
   * infinite: see OutboxRelay).
   * @default 10000
   */
  readonly retryAttempts?: number;
  /**
   * Stream records older than this go to the failure queue instead of the function: 60 seconds to 23
   * hours, short of the stream's 24-hour retention.
   * @default Duration.hours(6)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Memory in MB (128-10240).
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Invocation timeout (1 second to 15 minutes).
   * @default Duration.minutes(1)
   */
  readonly timeout?: Duration;
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

export interface ResolvedRelaySettings {
  readonly batchSize: number;
  readonly parallelizationFactor: number;
  readonly retryAttempts: number;
  readonly maxRecordAge: Duration;
  readonly memorySize: number;
  readonly timeout: Duration;
}

/** MSK's port for IAM authentication inside the VPC. https://docs.aws.amazon.com/msk/latest/developerguide/port-info.html */
const MSK_IAM_PORT = 9098;
const BOOTSTRAP_SERVER = /^[^\s:,]+:(\d{1,5})$/;
/** DynamoDB Streams keeps records 24 hours: a record must age out (to the failure queue) before that. */
const MAX_RECORD_AGE_LIMIT = Duration.hours(23);

export function resolveRelaySettings(props: OutboxRelayProps): ResolvedRelaySettings {
  return {
    batchSize: props.batchSize ?? 100,
    parallelizationFactor: props.parallelizationFactor ?? 1,
    retryAttempts: props.retryAttempts ?? 10_000,
    maxRecordAge: props.maxRecordAge ?? Duration.hours(6),
    memorySize: props.memorySize ?? 512,
    timeout: props.timeout ?? Duration.minutes(1),
  };
}

/** The brokers' ports, from the bootstrap string when it is known at synth; else MSK's IAM port. */
export function brokerPorts(bootstrapServers: string): number[] {
  if (Token.isUnresolved(bootstrapServers)) return [MSK_IAM_PORT];
  const ports = bootstrapServers
    .split(',')
    .map((server) => BOOTSTRAP_SERVER.exec(server.trim())?.[1])
    .filter((port): port is string => port !== undefined)
    .map(Number);
  return [...new Set(ports)].sort((a, b) => a - b);
}

export function relayProblems(props: OutboxRelayProps, s: ResolvedRelaySettings): string[] {
  const problems: string[] = [];
  const fail = (problem: string | undefined): void => {
    if (problem !== undefined) problems.push(problem);
  };
  const { cluster } = props;
  problems.push(...clusterProblems(cluster));
  if (cluster.securityGroup !== undefined && cluster.vpc === undefined) {
    fail("cluster.securityGroup is given without cluster.vpc: give the brokers' VPC too");
  }
  if (cluster.vpcSubnets !== undefined && cluster.vpc === undefined) {
    fail("cluster.vpcSubnets is given without cluster.vpc: give the brokers' VPC too");
  }
  problems.push(...topicProblems(props.topics));
  // https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html
  fail(wholeNumberProblem('batchSize', s.batchSize, 1, 10_000));
  fail(wholeNumberProblem('parallelizationFactor', s.parallelizationFactor, 1, 10));
  fail(wholeNumberProblem('retryAttempts', s.retryAttempts, 0, 10_000));
  fail(memorySizeProblem(s.memorySize));
  const ageSeconds = s.maxRecordAge.toSeconds({ integral: false });
  if (!Number.isInteger(ageSeconds) || ageSeconds < 60 || ageSeconds > MAX_RECORD_AGE_LIMIT.toSeconds()) {
    fail(
      `maxRecordAge is ${ageSeconds}s: set whole seconds from 60 to ${MAX_RECORD_AGE_LIMIT.toSeconds()} (23 hours), so a record reaches the failure queue before the stream drops it at 24 hours`,
    );
  }
  fail(timeoutProblem(s.timeout));
  return problems;
}

/** The cluster's ARN and bootstrap brokers, as either relay takes them. */
export function clusterProblems(cluster: RelayCluster): string[] {
  const problems: string[] = [];
  if (!isMskClusterArn(cluster.clusterArn)) {
    problems.push(
      `cluster.clusterArn "${cluster.clusterArn}" is not an MSK cluster ARN (arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>)`,
    );
  }
  if (!Token.isUnresolved(cluster.bootstrapServers)) {
    const servers = cluster.bootstrapServers.split(',').map((server) => server.trim());
    const bad = servers.filter((server) => !BOOTSTRAP_SERVER.test(server));
    if (cluster.bootstrapServers.trim() === '' || bad.length > 0) {
      problems.push(
        `cluster.bootstrapServers "${cluster.bootstrapServers}" is not host:port,host:port: give the cluster's IAM bootstrap brokers`,
      );
    }
  }
  return problems;
}

/** The topics a relay may write: some, each a literal Kafka topic name, none twice. */
export function topicProblems(topics: readonly string[]): string[] {
  const problems: string[] = [];
  if (topics.length === 0) {
    problems.push('topics is empty: list the topics the effects emit to (the relay may write to those only)');
  }
  for (const topic of topics) {
    if (!Token.isUnresolved(topic) && !KAFKA_TOPIC.test(topic)) {
      problems.push(
        `topics has "${topic}", not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ - (no wildcards)`,
      );
    }
  }
  const repeated = topics.filter((topic, index) => topics.indexOf(topic) !== index);
  if (repeated.length > 0) problems.push(`topics lists ${[...new Set(repeated)].join(', ')} more than once`);
  return problems;
}

export function wholeNumberProblem(
  name: string,
  value: number,
  min: number,
  max: number,
): string | undefined {
  return Number.isInteger(value) && value >= min && value <= max
    ? undefined
    : `${name} is ${value}: set a whole number from ${min} to ${max}`;
}

/** Lambda's memory range. https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html */
export function memorySizeProblem(memorySize: number): string | undefined {
  return wholeNumberProblem('memorySize (MB)', memorySize, 128, 10_240);
}

/** Lambda's timeout range. https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html */
export function timeoutProblem(timeout: Duration): string | undefined {
  const seconds = timeout.toSeconds({ integral: false });
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 900
    ? undefined
    : `timeout is ${seconds}s: Lambda allows whole seconds from 1 to 900`;
}
