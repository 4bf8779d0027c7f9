import { resolve } from 'node:path';
import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CONSUMER_NAME_PATTERN, DEFAULT_DEDUP_TTL_SECONDS } from '../lambdas/core/inbox-item.js';
import { METRICS_NAMESPACE } from '../lambdas/core/metric-names.js';
import {
  crossSettingProblems,
  HANDLER_SETTINGS,
  type HandlerSettings,
  readHandlerSettings,
  SETTING_VARIABLES,
  type SettingDefinition,
  type SettingName,
  settingProblem,
  settingsEnvironment,
  type TunableSettings,
} from '../lambdas/core/settings.js';
import { HANDLER_BUNDLE, ORDER_CONSUMER_ENTRY } from './bundling.js';
import type { InboxTable } from './inbox-table.js';
import { throwIfProblems } from './invalid-props-error.js';
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

/** Provisioned mode: the only mode in which Lambda honours a Kafka partial batch response. */
export interface ProvisionedPollers {
  /**
   * Pollers kept running (1-200).
   * @default 1
   */
  readonly minimumPollers?: number;
  /**
   * Upper bound for scaling (1-2000, at least `minimumPollers`); useful up to the partition count.
   * @default 2
   */
  readonly maximumPollers?: number;
}

export type HandlerLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface KafkaConsumerProps {
  /**
   * Scopes this consumer's rows in a shared inbox, and names its metrics (`service` dimension).
   * Changing it forgets the dedup history. Letters, digits, `_`, `.`, `-`; at most 64.
   */
  readonly consumerName: string;
  /** Where the records come from. */
  readonly source: KafkaSource;
  /** The topic to consume. Changing it replaces the event source mapping. */
  readonly topic: string;
  /**
   * Kafka consumer group id, set explicitly so a replaced mapping resumes from the group's committed offsets.
   * It cannot be changed after the mapping is created.
   */
  readonly consumerGroupId: string;
  /** The inbox: the function gets PutItem, UpdateItem and DeleteItem on it, nothing else. */
  readonly inboxTable: InboxTable;
  /**
   * The table the sample effect writes (`APP_TABLE_NAME`).
   * @default - no app table: grant your effect's permissions on `role` yourself
   */
  readonly appTable?: dynamodb.ITable;
  /**
   * The DynamoDB actions the effect performs on `appTable`.
   * @default ['dynamodb:UpdateItem']
   */
  readonly appTableActions?: readonly string[];
  /**
   * The handler's source file; it must export `handler`.
   * @default ORDER_CONSUMER_ENTRY (lambdas/order-consumer/handler.ts)
   */
  readonly entry?: string;
  /**
   * The lock file that pins what is bundled (the AWS SDK included).
   * @default - this project's package-lock.json
   */
  readonly depsLockFilePath?: string;
  /**
   * Memory in MB (128-10240); CPU scales with it.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * Invocation timeout (up to 15 minutes). The handler stops starting records `deadlineMargin` before it.
   * @default Duration.minutes(1)
   */
  readonly timeout?: Duration;
  /**
   * Time left at which the handler stops starting records and reports the rest (`DEADLINE_MARGIN_MS`).
   * @default Duration.seconds(3)
   */
  readonly deadlineMargin?: Duration;
  /**
   * Partitions of one batch processed at once (`PARTITION_CONCURRENCY`, 1-256).
   * @default - the handler's own default (8)
   */
  readonly partitionConcurrency?: number;
  /**
   * How long a processed record is remembered (`DEDUP_TTL_SECONDS`, whole seconds up to 365 days).
   * Must cover `maxRecordAge` and `topicRetention`.
   * @default Duration.seconds(DEFAULT_DEDUP_TTL_SECONDS) (7 days, Kafka's default retention)
   */
  readonly dedupTtl?: Duration;
  /**
   * The topic's `retention.ms`, if you know it: redeliveries (an offset reset, a new consumer group)
   * can come that late, so synth fails when `dedupTtl` is shorter.
   * @default - not declared: only `maxRecordAge` is checked
   */
  readonly topicRetention?: Duration;
  /**
   * The handler's log level (`POWERTOOLS_LOG_LEVEL` and Lambda's JSON application log level).
   * @default 'INFO'
   */
  readonly logLevel?: HandlerLogLevel;
  /**
   * System logs of the event source mapping's pollers, written to the function's log group.
   * @default lambda.EventSourceMappingLogLevel.WARN
   */
  readonly mappingLogLevel?: lambda.EventSourceMappingLogLevel;
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The handler's other settings (lambdas/core/settings.ts, the README's settings table): ordering, key
   * source and concurrency, lease margin, completed-key cache, dedup header, field and fallback. Checked
   * at synth time against the bounds the handler enforces.
   * @default - the handler's defaults
   */
  readonly settings?: TunableSettings;
  /**
   * Extra environment variables for your handler. The ones this construct sets cannot be overridden.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * X-Ray tracing of the function.
   * @default lambda.Tracing.DISABLED
   */
  readonly tracing?: lambda.Tracing;
  /**
   * Records per invocation (1-10,000); one invocation carries at most 6 MB whatever this says.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * How long the mapping gathers records before invoking: whole seconds, up to 5 minutes.
   * @default - Lambda's Kafka default, 500 ms
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Where a new consumer group starts. Set only on create.
   * @default lambda.StartingPosition.TRIM_HORIZON (the inbox makes reprocessing safe)
   */
  readonly startingPosition?: lambda.StartingPosition;
  /**
   * Unix seconds, with `startingPosition: AT_TIMESTAMP` only.
   * @default - none
   */
  readonly startingPositionTimestamp?: number;
  /**
   * Retries of a failed batch before it goes to the failure bucket (0-10,000; never infinite).
   * @default 10
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this go to the failure bucket instead of the function (60 s to 7 days).
   * @default Duration.days(1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Split a batch in two when the function fails as a whole (a timeout, a crash).
   * @default true
   */
  readonly bisectBatchOnError?: boolean;
  /**
   * Provisioned pollers. `false` is refused: partial batch responses need provisioned mode.
   * @default { minimumPollers: 1, maximumPollers: 2 }
   */
  readonly provisionedPollers?: ProvisionedPollers | false;
  /**
   * How long failed batches are kept in the failure bucket.
   * @default Duration.days(90)
   */
  readonly failureRetention?: Duration;
}

/** Env vars this construct owns (every handler setting among them); `environment` may not set them. */
const RESERVED_ENV = [
  ...SETTING_VARIABLES,
  'APP_TABLE_NAME',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'NODE_OPTIONS',
] as const;

/** Settings the construct's own typed props carry: `settings` may not set them too. */
const SETTINGS_FROM_PROPS: Partial<Record<SettingName, keyof KafkaConsumerProps>> = {
  dedupTtlSeconds: 'dedupTtl',
  deadlineMarginMs: 'deadlineMargin',
  partitionConcurrency: 'partitionConcurrency',
};

/** Lambda's ESM needs these to attach to the brokers' VPC; EC2 Describe* actions take no resource ARN. */
export const ESM_NETWORK_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeVpcs',
  'ec2:DeleteNetworkInterface',
  'ec2:DescribeSubnets',
  'ec2:DescribeSecurityGroups',
] as const;

const PROJECT_LOCK_FILE = resolve(import.meta.dirname, '..', 'package-lock.json');
const KAFKA_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const CONSUMER_GROUP_ID = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
const BOOTSTRAP_SERVER = /^[^\s:,]+:\d{1,5}$/;
const MAX_RECORD_AGE_LIMIT_SECONDS = 604_800;
/** The handler's own bound on DEDUP_TTL_SECONDS (lambdas/core/settings.ts). */
const MAX_DEDUP_TTL_SECONDS = HANDLER_SETTINGS.dedupTtlSeconds.max;

const APPLICATION_LOG_LEVEL: Record<HandlerLogLevel, lambda.ApplicationLogLevel> = {
  DEBUG: lambda.ApplicationLogLevel.DEBUG,
  INFO: lambda.ApplicationLogLevel.INFO,
  WARN: lambda.ApplicationLogLevel.WARN,
  ERROR: lambda.ApplicationLogLevel.ERROR,
};

interface ResolvedSettings {
  readonly timeout: Duration;
  readonly deadlineMargin: Duration;
  readonly dedupTtl: Duration;
  readonly maxRecordAge: Duration;
  readonly batchSize: number;
  readonly retryAttempts: number;
  readonly memorySize: number;
  readonly pollers: Required<ProvisionedPollers>;
  readonly appTableActions: readonly string[];
}

/**
 * The consumer as one unit: a Node.js 22 ARM64 function bundled with the pinned AWS SDK, its Kafka event
 * source mapping (provisioned pollers, partial batch responses, finite retries, a maximum record age,
 * bisect, metrics) sending failed batches whole to an encrypted S3 bucket, and a role allowed only what
 * the code and the mapping use.
 */
export class KafkaConsumer extends Construct {
  public readonly consumerName: string;
  public readonly function: nodejs.NodejsFunction;
  public readonly role: iam.Role;
  public readonly logGroup: logs.LogGroup;
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** Failed batches, whole (metadata and records), as Lambda writes them. */
  public readonly failureBucket: s3.Bucket;
  public readonly timeout: Duration;

  public constructor(scope: Construct, id: string, props: KafkaConsumerProps) {
    super(scope, id);
    const settings = resolveSettings(props);
    throwIfProblems(`KafkaConsumer ${this.node.path} props are invalid`, validate(props, settings));
    this.consumerName = props.consumerName;
    this.timeout = settings.timeout;
    const logLevel = props.logLevel ?? 'INFO';

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Kafka consumer ${props.consumerName}: inbox writes, its effect, and its event source mapping`,
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: props.entry ?? ORDER_CONSUMER_ENTRY,
      handler: HANDLER_BUNDLE.handlerExport,
      depsLockFilePath: props.depsLockFilePath ?? PROJECT_LOCK_FILE,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: settings.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVEL[logLevel],
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: props.tracing ?? lambda.Tracing.DISABLED,
      description: `Applies each ${props.topic} record once (inbox ${props.consumerName})`,
      environment: {
        ...props.environment,
        ...(props.appTable ? { APP_TABLE_NAME: props.appTable.tableName } : {}),
        ...settingsEnvironment(handlerSettingsOf(props, settings)),
        POWERTOOLS_SERVICE_NAME: props.consumerName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: logLevel,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        target: HANDLER_BUNDLE.target,
        format: nodejs.OutputFormat.ESM,
        mainFields: [...HANDLER_BUNDLE.mainFields],
        minify: HANDLER_BUNDLE.minify,
        sourceMap: HANDLER_BUNDLE.sourcemap,
        banner: HANDLER_BUNDLE.banner,
        // Nothing external: the AWS SDK in the bundle is the version package-lock.json pins.
        externalModules: [...HANDLER_BUNDLE.external],
        esbuildArgs: Object.fromEntries(
          Object.entries(HANDLER_BUNDLE.alias).map(([module, replacement]) => [
            `--alias:${module}`,
            replacement,
          ]),
        ),
        forceDockerBundling: false,
      },
    });

    props.inboxTable.grantInboxWrites(this.role);
    if (props.appTable) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: [...settings.appTableActions],
          resources: [props.appTable.tableArn],
        }),
      );
    }

    this.failureBucket = new s3.Bucket(this, 'FailedBatches', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'expire-failed-batches',
          expiration: props.failureRetention ?? Duration.days(90),
          noncurrentVersionExpiration: Duration.days(1),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    // S3 destinations get the metadata and the whole failed batch; SQS and SNS get only offsets.
    // https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.failureBucket.arnForObjects('*')],
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.failureBucket.bucketArn] }),
    );

    this.grantSourceAccess(props);

    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'Mapping', {
      target: this.function,
      ...(props.source.kind === 'msk'
        ? { eventSourceArn: props.source.clusterArn }
        : { kafkaBootstrapServers: [...props.source.bootstrapServers] }),
      kafkaTopic: props.topic,
      kafkaConsumerGroupId: props.consumerGroupId,
      sourceAccessConfigurations: sourceAccessConfigurations(props.source),
      startingPosition: props.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
      startingPositionTimestamp: props.startingPositionTimestamp,
      batchSize: settings.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      // Partial batch responses are honoured only in provisioned mode, which validate() insists on.
      // https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
      reportBatchItemFailures: true,
      provisionedPollerConfig: settings.pollers,
      retryAttempts: settings.retryAttempts,
      maxRecordAge: settings.maxRecordAge,
      bisectBatchOnError: props.bisectBatchOnError ?? true,
      // Not CDK's S3OnFailureDestination: it grants read-write on the bucket; the statements above are enough.
      onFailure: { bind: () => ({ destination: this.failureBucket.bucketArn }) },
      supportS3OnFailureDestination: true,
      metricsConfig: {
        metrics: [
          lambda.MetricType.EVENT_COUNT,
          lambda.MetricType.ERROR_COUNT,
          lambda.MetricType.KAFKA_METRICS,
        ],
      },
      // Provisioned-mode pollers log to the function's log group, with the role's logs permissions.
      // https://docs.aws.amazon.com/lambda/latest/dg/esm-logging.html
      logLevel: props.mappingLogLevel ?? lambda.EventSourceMappingLogLevel.WARN,
    });
    // The mapping checks the role when it is created: create it after the policy.
    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (policy) {
      this.eventSourceMapping.node.addDependency(policy);
    }

    this.acknowledgeNagFindings(props);
  }

  /** The `EventSourceMappingUUID` dimension of the mapping's metrics. */
  public get eventSourceMappingUuid(): string {
    return this.eventSourceMapping.eventSourceMappingId;
  }

  private grantSourceAccess(props: KafkaConsumerProps): void {
    const { source } = props;
    const needsNetwork = source.kind === 'msk' || source.vpc !== undefined;
    if (source.kind === 'msk') {
      // https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'],
          resources: [source.clusterArn],
        }),
      );
      if (source.saslScramSecretArn === undefined) {
        // IAM authentication: connect to the cluster, read the one topic, commit as the one group.
        // https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html
        const arns = mskIamResources(source.clusterArn, props.topic, props.consumerGroupId);
        this.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
            resources: [arns.cluster],
          }),
        );
        this.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
            resources: [arns.topic],
          }),
        );
        this.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
            resources: [arns.group],
          }),
        );
      }
    }
    const secretArn = source.saslScramSecretArn;
    if (secretArn !== undefined) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }),
      );
    }
    if (needsNetwork) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: [...ESM_NETWORK_ACTIONS], resources: ['*'] }),
      );
    }
  }

  private acknowledgeNagFindings(props: KafkaConsumerProps): void {
    const needsNetwork = props.source.kind === 'msk' || props.source.vpc !== undefined;
    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (needsNetwork && policy) {
      const reason =
        "Lambda's Kafka pollers create and describe ENIs in the brokers' VPC; the EC2 Describe* actions support no resource-level permissions (https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html).";
      Validations.of(policy).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason });
    }
    if (policy) {
      const bucketId = Stack.of(this).resolve(
        (this.failureBucket.node.defaultChild as s3.CfnBucket).logicalId,
      );
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
        reason:
          'Lambda writes each failed batch as a new object under a key it chooses: s3:PutObject on the failure bucket objects only (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).',
      });
    }
    Validations.of(this.failureBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only Lambda writes here (failed batches); a server access log bucket would itself need one. Use CloudTrail S3 data events to audit reads.',
    });
    const fn = this.function.node.defaultChild as lambda.CfnFunction;
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs22.x is pinned with the bundle target (lib/bundling.ts: node22); moving runtimes is a deliberate upgrade.',
    });
    Validations.of(fn).acknowledge({
      id: 'Serverless-LambdaLatestVersion',
      reason:
        'nodejs22.x is pinned with the bundle target (lib/bundling.ts: node22); moving runtimes is a deliberate upgrade.',
    });
    const notAsync =
      'Invoked synchronously by the Kafka event source mapping only, never asynchronously: failed batches go to the mapping on-failure S3 destination.';
    Validations.of(fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: notAsync });
    if ((props.tracing ?? lambda.Tracing.DISABLED) !== lambda.Tracing.ACTIVE) {
      Validations.of(fn).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason:
          'Kafka records carry no trace context; the EMF metrics, JSON logs and dashboard cover each batch. Set tracing: Tracing.ACTIVE to add X-Ray.',
      });
    }
  }
}

/** The settings the handler gets from this construct: its typed props, then `settings`. */
function handlerSettingsOf(props: KafkaConsumerProps, s: ResolvedSettings): Partial<HandlerSettings> {
  return {
    inboxTableName: props.inboxTable.tableName,
    consumerName: props.consumerName,
    dedupTtlSeconds: s.dedupTtl.toSeconds({ integral: false }),
    deadlineMarginMs: s.deadlineMargin.toMilliseconds(),
    ...(props.partitionConcurrency === undefined ? {} : { partitionConcurrency: props.partitionConcurrency }),
    ...props.settings,
  };
}

/** The `settings` prop against the handler's own bounds and rules, named as props. */
function settingsProblems(props: KafkaConsumerProps): string[] {
  const given = Object.entries(props.settings ?? {}).filter(([, value]) => value !== undefined) as [
    SettingName,
    string | number,
  ][];
  const problems: string[] = [];
  for (const [name, value] of given) {
    const definition: SettingDefinition | undefined = HANDLER_SETTINGS[name];
    if (definition === undefined || definition.setByConstruct) {
      problems.push(`settings.${name} is not a setting you can set: remove it`);
      continue;
    }
    const fromProp = SETTINGS_FROM_PROPS[name];
    if (fromProp !== undefined) {
      problems.push(`settings.${name} is the ${fromProp} prop: set ${fromProp} instead`);
      continue;
    }
    const problem = settingProblem(name, value);
    if (problem) problems.push(`settings.${name}: ${problem}`);
  }
  const env = settingsEnvironment(Object.fromEntries(given));
  const { settings } = readHandlerSettings({ INBOX_TABLE_NAME: 'x', CONSUMER_NAME: 'x', ...env });
  problems.push(...crossSettingProblems(settings, new Set(given.map(([name]) => name))));
  return problems;
}

function resolveSettings(props: KafkaConsumerProps): ResolvedSettings {
  const pollers = props.provisionedPollers === false ? undefined : props.provisionedPollers;
  return {
    timeout: props.timeout ?? Duration.minutes(1),
    deadlineMargin: props.deadlineMargin ?? Duration.seconds(3),
    dedupTtl: props.dedupTtl ?? Duration.seconds(DEFAULT_DEDUP_TTL_SECONDS),
    maxRecordAge: props.maxRecordAge ?? Duration.days(1),
    batchSize: props.batchSize ?? 100,
    retryAttempts: props.retryAttempts ?? 10,
    memorySize: props.memorySize ?? 1024,
    pollers: { minimumPollers: pollers?.minimumPollers ?? 1, maximumPollers: pollers?.maximumPollers ?? 2 },
    appTableActions: props.appTableActions ?? ['dynamodb:UpdateItem'],
  };
}

function validate(props: KafkaConsumerProps, s: ResolvedSettings): string[] {
  const problems: string[] = [];
  const fail = (problem: string): void => {
    problems.push(problem);
  };
  const known = (value: string): boolean => !Token.isUnresolved(value);

  if (!CONSUMER_NAME_PATTERN.test(props.consumerName)) {
    fail(
      `consumerName "${props.consumerName}" must match ${CONSUMER_NAME_PATTERN} (letters, digits, _ . -; 1-64)`,
    );
  }
  if (known(props.topic) && !KAFKA_TOPIC.test(props.topic)) {
    fail(`topic "${props.topic}" is not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ -`);
  }
  if (known(props.consumerGroupId) && !CONSUMER_GROUP_ID.test(props.consumerGroupId)) {
    fail(
      `consumerGroupId "${props.consumerGroupId}" must be 1-200 characters of a-z A-Z 0-9 - / * : _ + = . @`,
    );
  }
  problems.push(...validateSource(props.source));
  problems.push(...settingsProblems(props));

  // Lambda honours a Kafka partial batch response only in provisioned mode; in on-demand mode a reported
  // record is ignored and the whole batch commits: records would be lost.
  // https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
  if (props.provisionedPollers === false) {
    fail(
      'provisionedPollers is false, but partial batch responses (always on) are ignored outside provisioned mode: remove provisionedPollers: false or set { minimumPollers, maximumPollers }',
    );
  } else {
    const { minimumPollers, maximumPollers } = s.pollers;
    if (!Number.isInteger(minimumPollers) || minimumPollers < 1 || minimumPollers > 200) {
      fail(`provisionedPollers.minimumPollers is ${minimumPollers}: set a whole number from 1 to 200`);
    }
    if (!Number.isInteger(maximumPollers) || maximumPollers < 1 || maximumPollers > 2000) {
      fail(`provisionedPollers.maximumPollers is ${maximumPollers}: set a whole number from 1 to 2000`);
    }
    if (minimumPollers > maximumPollers) {
      fail(
        `provisionedPollers.minimumPollers (${minimumPollers}) exceeds maximumPollers (${maximumPollers}): raise maximumPollers`,
      );
    }
  }
  // https://docs.aws.amazon.com/lambda/latest/dg/msk-esm-parameters.html
  if (!Number.isInteger(s.batchSize) || s.batchSize < 1 || s.batchSize > 10_000) {
    fail(`batchSize is ${s.batchSize}: Kafka event source mappings take 1 to 10000 records per batch`);
  }
  if (!Number.isInteger(s.retryAttempts) || s.retryAttempts < 0 || s.retryAttempts > 10_000) {
    fail(
      `retryAttempts is ${s.retryAttempts}: set a finite count from 0 to 10000, so a failing batch reaches the failure bucket`,
    );
  }
  const wholeSeconds = (name: string, duration: Duration): number => {
    const value = duration.toSeconds({ integral: false });
    if (!Number.isInteger(value)) {
      fail(`${name} is ${value}s: use whole seconds`);
    }
    return value;
  };
  const maxRecordAgeSeconds = wholeSeconds('maxRecordAge', s.maxRecordAge);
  if (maxRecordAgeSeconds < 60 || maxRecordAgeSeconds > MAX_RECORD_AGE_LIMIT_SECONDS) {
    fail(`maxRecordAge is ${maxRecordAgeSeconds}s: set 60 seconds to 7 days`);
  }
  const dedupSeconds = wholeSeconds('dedupTtl', s.dedupTtl);
  if (dedupSeconds < maxRecordAgeSeconds) {
    fail(
      `dedupTtl (${dedupSeconds}s) is shorter than maxRecordAge (${maxRecordAgeSeconds}s): a record retried after its dedup row expired would be applied twice; raise dedupTtl or lower maxRecordAge`,
    );
  }
  if (dedupSeconds > MAX_DEDUP_TTL_SECONDS) {
    fail(`dedupTtl is ${dedupSeconds}s: the handler accepts at most 365 days`);
  }
  const retentionSeconds = props.topicRetention?.toSeconds({ integral: false });
  if (retentionSeconds !== undefined && dedupSeconds < retentionSeconds) {
    fail(
      `dedupTtl (${dedupSeconds}s) is shorter than topicRetention (${retentionSeconds}s): a record re-read from the topic after its dedup row expired would be applied twice; raise dedupTtl to at least the retention`,
    );
  }
  if (props.maxBatchingWindow !== undefined) {
    const windowMs = props.maxBatchingWindow.toMilliseconds();
    if (windowMs % 1000 !== 0 || windowMs > 300_000) {
      fail(`maxBatchingWindow is ${windowMs} ms: set whole seconds from 0 to 300`);
    }
  }
  const timeoutSeconds = wholeSeconds('timeout', s.timeout);
  if (timeoutSeconds < 1 || timeoutSeconds > 900) {
    fail(`timeout is ${timeoutSeconds}s: Lambda allows 1 to 900 seconds`);
  }
  if (s.deadlineMargin.toMilliseconds() >= s.timeout.toMilliseconds()) {
    fail(
      `deadlineMargin (${s.deadlineMargin.toMilliseconds()} ms) must be shorter than timeout (${s.timeout.toMilliseconds()} ms): lower it or raise the timeout`,
    );
  }
  if (!Number.isInteger(s.memorySize) || s.memorySize < 128 || s.memorySize > 10_240) {
    fail(`memorySize is ${s.memorySize}: set 128 to 10240 MB`);
  }
  if (
    props.partitionConcurrency !== undefined &&
    settingProblem('partitionConcurrency', props.partitionConcurrency)
  ) {
    const { min, max } = HANDLER_SETTINGS.partitionConcurrency;
    fail(`partitionConcurrency is ${props.partitionConcurrency}: set a whole number from ${min} to ${max}`);
  }
  if (
    props.startingPosition === lambda.StartingPosition.AT_TIMESTAMP &&
    props.startingPositionTimestamp === undefined
  ) {
    fail('startingPosition is AT_TIMESTAMP: also set startingPositionTimestamp (Unix seconds)');
  }
  if (props.appTableActions !== undefined && props.appTable === undefined) {
    fail('appTableActions is set without appTable: set appTable, or grant on `role` yourself');
  }
  for (const action of s.appTableActions) {
    if (!/^dynamodb:[A-Za-z]+$/.test(action)) {
      fail(
        `appTableActions has "${action}": name single DynamoDB actions, like dynamodb:UpdateItem (no wildcards)`,
      );
    }
  }
  const overridden = Object.keys(props.environment ?? {}).filter((key) =>
    (RESERVED_ENV as readonly string[]).includes(key),
  );
  if (overridden.length > 0) {
    fail(`environment sets ${overridden.join(', ')}: these come from the construct's props; remove them`);
  }
  return problems;
}

function validateSource(source: KafkaSource): string[] {
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

function sourceAccessConfigurations(source: KafkaSource): lambda.SourceAccessConfiguration[] | undefined {
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
