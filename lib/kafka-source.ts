/**
 * Where a KafkaConsumer's records come from (Amazon MSK or self-managed brokers), the IAM its mapping needs
 * to reach them, and the mapping's source access configurations.
 */
import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { isMskClusterArn, mskIamResources } from './msk-arns.js';

/** An Amazon MSK cluster, reached with IAM authentication unless a SASL/SCRAM secret is given. */
export interface MskSource {
  readonly kind: 'msk';
  /** `arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>` */
  readonly clusterArn: string;
  /**
   * Complete ARN of a Secrets Manager secret (name starting `AmazonMSK_`) with SASL/SCRAM credentials.
   * @default - IAM authentication, granted on the cluster, the topic and the consumer group only
   */
  readonly saslScramSecretArn?: string;
}

/** Brokers outside MSK, reached with SASL/SCRAM; through a VPC when `vpc` is set. */
export interface SelfManagedKafkaSource {
  readonly kind: 'self-managed';
  /** `host:port` of each bootstrap broker. */
  readonly bootstrapServers: readonly string[];
  /** Complete ARN of the Secrets Manager secret holding `username` and `password`. */
  readonly saslScramSecretArn: string;
  /**
   * The SCRAM hash the brokers expect.
   * @default 'SHA-512'
   */
  readonly scramMechanism?: 'SHA-512' | 'SHA-256';
  /**
   * Subnets and security group through which Lambda's pollers reach brokers that live in a VPC.
   * @default - brokers are reached over the internet
   */
  readonly vpc?: {
    readonly subnetIds: readonly string[];
    readonly securityGroupIds: readonly string[];
  };
}

export type KafkaSource = MskSource | SelfManagedKafkaSource;

/** Lambda's ESM needs these to attach to the brokers' VPC; EC2 Describe* actions take no resource ARN. */
export const ESM_NETWORK_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeVpcs',
  'ec2:DeleteNetworkInterface',
  'ec2:DescribeSubnets',
  'ec2:DescribeSecurityGroups',
] as const;

const BOOTSTRAP_SERVER = /^[^\s:,]+:\d{1,5}$/;

/** Allows the mapping (through the function's role) to reach the brokers: only what the source needs. */
export function grantSourceAccess(
  role: iam.Role,
  source: KafkaSource,
  topic: string,
  consumerGroupId: string,
): void {
  const needsNetwork = source.kind === 'msk' || source.vpc !== undefined;
  if (source.kind === 'msk') {
    // https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'],
        resources: [source.clusterArn],
      }),
    );
    if (source.saslScramSecretArn === undefined) {
      // IAM authentication: connect to the cluster, read the one topic, commit as the one group.
      // https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html
      const arns = mskIamResources(source.clusterArn, topic, consumerGroupId);
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
          resources: [arns.cluster],
        }),
      );
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
          resources: [arns.topic],
        }),
      );
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
          resources: [arns.group],
        }),
      );
    }
  }
  const secretArn = source.saslScramSecretArn;
  if (secretArn !== undefined) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }),
    );
  }
  if (needsNetwork) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...ESM_NETWORK_ACTIONS], resources: ['*'] }),
    );
  }
}

export function validateSource(source: KafkaSource): string[] {
  const problems: string[] = [];
  if (source.kind === 'msk') {
    if (!isMskClusterArn(source.clusterArn)) {
      problems.push(
        `source.clusterArn "${source.clusterArn}" is not an MSK cluster ARN (arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>)`,
      );
    }
    return problems;
  }
  if (source.bootstrapServers.length === 0) {
    problems.push('source.bootstrapServers is empty: list the brokers as host:port');
  }
  for (const server of source.bootstrapServers) {
    if (!Token.isUnresolved(server) && !BOOTSTRAP_SERVER.test(server)) {
      problems.push(`source.bootstrapServers has "${server}": write each broker as host:port`);
    }
  }
  if (!Token.isUnresolved(source.saslScramSecretArn) && !source.saslScramSecretArn.startsWith('arn:')) {
    problems.push(
      `source.saslScramSecretArn "${source.saslScramSecretArn}" is not an ARN: give the secret's complete ARN`,
    );
  }
  if (source.vpc && (source.vpc.subnetIds.length === 0 || source.vpc.securityGroupIds.length === 0)) {
    problems.push('source.vpc needs at least one subnet id and one security group id');
  }
  return problems;
}

export function sourceAccessConfigurations(
  source: KafkaSource,
): lambda.SourceAccessConfiguration[] | undefined {
  const configurations: lambda.SourceAccessConfiguration[] = [];
  if (source.saslScramSecretArn !== undefined) {
    const type =
      source.kind === 'self-managed' && source.scramMechanism === 'SHA-256'
        ? lambda.SourceAccessConfigurationType.SASL_SCRAM_256_AUTH
        : lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH;
    configurations.push({ type, uri: source.saslScramSecretArn });
  }
  if (source.kind === 'self-managed' && source.vpc) {
    // URIs carry a type prefix: "subnet:subnet-..." and "security_group:sg-...".
    // https://docs.aws.amazon.com/lambda/latest/dg/kafka-esm-create.html
    for (const subnetId of source.vpc.subnetIds) {
      configurations.push({
        type: lambda.SourceAccessConfigurationType.VPC_SUBNET,
        uri: `subnet:${subnetId}`,
      });
    }
    for (const groupId of source.vpc.securityGroupIds) {
      configurations.push({
        type: lambda.SourceAccessConfigurationType.VPC_SECURITY_GROUP,
        uri: `security_group:${groupId}`,
      });
    }
  }
  return configurations.length > 0 ? configurations : undefined;
}
