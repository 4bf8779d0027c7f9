import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../lambdas/core/metric-names.js';
import { settingsEnvironment } from '../lambdas/core/settings.js';
import { HANDLER_BUNDLE } from './bundling.js';
import { mappingOptions } from './event-source-options.js';
import type { FailureDestination } from './failure-destination.js';
import { handlerBundling } from './function-bundling.js';
import { CONSUMER_ARCHITECTURE } from './function-defaults.js';
import type { InboxTable } from './inbox-table.js';
import { throwIfProblems } from './invalid-props-error.js';
import {
  type HandlerLogLevel,
  type KafkaConsumerProps,
  resolveSettings,
  validate,
} from './kafka-consumer-props.js';
import { grantSourceAccess, sourceAccessConfigurations } from './kafka-source.js';
import { enableOpenTelemetry } from './open-telemetry.js';
import type { OutboxTable } from './outbox-table.js';
import { PostgresInboxConnection } from './postgres-database.js';
import { RedisInboxConnection } from './redis-cache.js';
import { glueSchemasArn } from './schema-registry.js';
import { handlerSettingsOf, settingsProblems } from './settings-prop.js';

export type { EventSourceOptions } from './event-source-options.js';
export type { FailureDestination } from './failure-destination.js';
export type { HandlerLogLevel, KafkaConsumerProps, ProvisionedPollers } from './kafka-consumer-props.js';
export type { KafkaRecordFilter } from './kafka-filters.js';
export {
  ESM_NETWORK_ACTIONS,
  type KafkaSource,
  type MskSource,
  type SelfManagedKafkaSource,
} from './kafka-source.js';
export { type PostgresConnectionLabels, PostgresInboxConnection } from './postgres-database.js';
export type { PostgresAuth, PostgresDatabase, PostgresInboxProps, PostgresTls } from './postgres-props.js';
export { RedisInboxConnection } from './redis-cache.js';
export type { RedisAuth, RedisCache, RedisCacheKind, RedisInboxProps } from './redis-props.js';
export type {
  ConfluentSchemaRegistry,
  EventRecordFormat,
  GlueSchemaRegistry,
  RegistryCommon,
  SchemaRegistry,
  SchemaValidationAttribute,
} from './schema-registry.js';

const APPLICATION_LOG_LEVEL: Record<HandlerLogLevel, lambda.ApplicationLogLevel> = {
  DEBUG: lambda.ApplicationLogLevel.DEBUG,
  INFO: lambda.ApplicationLogLevel.INFO,
  WARN: lambda.ApplicationLogLevel.WARN,
  ERROR: lambda.ApplicationLogLevel.ERROR,
};

/**
 * The consumer as one unit: a Node.js 22 ARM64 function bundled with the pinned AWS SDK, its Kafka event
 * source mapping (provisioned pollers, partial batch responses, finite retries, a maximum record age,
 * bisect, metrics) sending failed batches whole to an encrypted S3 bucket, and a role allowed only what
 * the code and the mapping use.
 */
export class KafkaConsumer extends Construct {
  public readonly consumerName: string;
  /** The DynamoDB inbox the consumer dedups with; undefined when the inbox is in Postgres or Redis. */
  public readonly inboxTable: InboxTable | undefined;
  /** The outbox the effect's events are appended to (docs/outbox.md); undefined without one. */
  public readonly outbox: OutboxTable | undefined;
  /** The way into the Postgres database holding the inbox; undefined with another inbox. */
  public readonly postgres: PostgresInboxConnection | undefined;
  /** The way into the Redis cache holding the inbox; undefined with another inbox. */
  public readonly redis: RedisInboxConnection | undefined;
  /** The topic it consumes. */
  public readonly topic: string;
  public readonly function: nodejs.NodejsFunction;
  public readonly role: iam.Role;
  public readonly logGroup: logs.LogGroup;
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /**
   * Failed batches, whole (metadata and records), as Lambda writes them; only with the S3 destination
   * (the default).
   */
  public readonly failureBucket: s3.Bucket | undefined;
  /** Where the mapping sends the records it gives up on. */
  public readonly failureDestination: FailureDestination;
  public readonly timeout: Duration;

  public constructor(scope: Construct, id: string, props: KafkaConsumerProps) {
    super(scope, id);
    const settings = resolveSettings(props);
    // Besides the props' own rules, every handler setting the function will get (consumerName, dedupTtl,
    // deadlineMargin, partitionConcurrency and `settings`), judged by the handler's own check: synth
    // passes nothing that fails the cold start.
    throwIfProblems(`KafkaConsumer ${this.node.path} props are invalid`, [
      ...validate(props, settings),
      ...settingsProblems(props, settings),
    ]);
    this.consumerName = props.consumerName;
    this.inboxTable = props.inboxTable;
    this.outbox = props.outbox;
    const postgres =
      props.postgres === undefined
        ? undefined
        : new PostgresInboxConnection(this, 'Postgres', props.postgres);
    this.postgres = postgres;
    const redis =
      props.redis === undefined ? undefined : new RedisInboxConnection(this, 'Redis', props.redis);
    this.redis = redis;
    // A store in the team's VPC puts the function there, behind a security group of the store's.
    const network = postgres ?? redis;
    this.topic = props.topic;
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
      entry: props.entry,
      handler: HANDLER_BUNDLE.handlerExport,
      ...(props.depsLockFilePath === undefined ? {} : { depsLockFilePath: props.depsLockFilePath }),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture:
        CONSUMER_ARCHITECTURE === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
      memorySize: settings.memorySize,
      timeout: settings.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVEL[logLevel],
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: tracingOf(props),
      ...(network === undefined
        ? {}
        : { vpc: network.vpc, vpcSubnets: network.vpcSubnets, securityGroups: [network.securityGroup] }),
      description: `Applies each ${props.topic} record once (inbox ${props.consumerName})`,
      environment: {
        ...props.environment,
        ...settingsEnvironment(handlerSettingsOf(props, settings)),
        ...postgres?.environment(),
        ...redis?.environment(),
        POWERTOOLS_SERVICE_NAME: props.consumerName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: logLevel,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: handlerBundling(),
    });

    if (props.openTelemetry) {
      enableOpenTelemetry(this.function, this.role, props.openTelemetry, props.consumerName);
    }
    props.inboxTable?.grantConsumerAccess(this.role);
    props.outbox?.grantAppend(this.role);
    postgres?.bind(this.function, this.role);
    redis?.bind(this.role);

    this.failureDestination = props.onFailure ?? { kind: 's3' };
    // The bucket exists only for the S3 destination (the default): with another one it would stay empty.
    this.failureBucket =
      this.failureDestination.kind === 's3'
        ? new s3.Bucket(this, 'FailedBatches', {
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
          })
        : undefined;
    // Before the source's grants, so the failure bucket's statements keep their place in the policy.
    const failureBucket = this.failureBucket;
    const options = mappingOptions(props, this.role, props.source, props.consumerGroupId, () => {
      // Asked for only when the destination is S3, which is when the bucket exists.
      if (failureBucket === undefined) throw new Error('the S3 failure destination has no bucket');
      return this.bindFailureBucket(failureBucket);
    });
    grantSourceAccess(this.role, props.source, props.topic, props.consumerGroupId);

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
      ...options,
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

  /**
   * The failure bucket as the mapping's destination (the default): s3:PutObject on its objects and
   * s3:ListBucket on it. S3 destinations get the metadata and the whole failed batch; SQS and SNS only
   * offsets. Not CDK's S3OnFailureDestination: it grants read-write on the bucket.
   * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html
   */
  private bindFailureBucket(bucket: s3.Bucket): lambda.IEventSourceDlq {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
    return { bind: () => ({ destination: bucket.bucketArn }) };
  }

  /** The `EventSourceMappingUUID` dimension of the mapping's metrics. */
  public get eventSourceMappingUuid(): string {
    return this.eventSourceMapping.eventSourceMappingId;
  }

  private acknowledgeNagFindings(props: KafkaConsumerProps): void {
    const needsNetwork = props.source.kind === 'msk' || props.source.vpc !== undefined;
    const policy = this.role.node.tryFindChild('DefaultPolicy');
    const networkReasons = [
      ...(needsNetwork
        ? [
            "Lambda's Kafka pollers create and describe ENIs in the brokers' VPC; the EC2 Describe* actions support no resource-level permissions (https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html).",
          ]
        : []),
      ...(this.postgres === undefined
        ? []
        : [
            "The function runs in its database's VPC: Lambda creates, describes and deletes its ENIs with the function's role, DescribeNetworkInterfaces only on all resources (https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html#configuration-vpc-permissions).",
          ]),
      ...(this.redis === undefined
        ? []
        : [
            "The function runs in its cache's VPC: Lambda creates, describes and deletes its ENIs with the function's role, DescribeNetworkInterfaces only on all resources (https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html#configuration-vpc-permissions).",
          ]),
    ];
    if (networkReasons.length > 0 && policy) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: networkReasons.join(' '),
      });
    }
    const bucket = this.failureBucket;
    if (policy && bucket !== undefined) {
      const bucketId = Stack.of(this).resolve((bucket.node.defaultChild as s3.CfnBucket).logicalId);
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
        reason:
          'Lambda writes each failed batch as a new object under a key it chooses: s3:PutObject on the failure bucket objects only (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).',
      });
    }
    const registry = props.schemaRegistry;
    if (policy && registry?.kind === 'glue' && !Token.isUnresolved(registry.registryArn)) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${glueSchemasArn(registry.registryArn)}]`,
        reason:
          "Lambda's pollers look up each record's schema version by the id in the record: glue:GetSchemaVersion on the registry's schemas, none known at deploy time (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html).",
      });
    }
    if (bucket !== undefined) {
      Validations.of(bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'Only Lambda writes here (failed batches); a server access log bucket would itself need one. Use CloudTrail S3 data events to audit reads.',
      });
    }
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
      this.postgres?.expiredRowsRule === undefined
        ? 'Invoked synchronously by the Kafka event source mapping only, never asynchronously: failed batches go to the mapping on-failure S3 destination.'
        : "Kafka batches come synchronously from the event source mapping (failed ones to its on-failure destination); the only asynchronous invocation is the expired-rows schedule's, which carries no data: a failed run leaves the rows to the next.";
    Validations.of(fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: notAsync });
    if (tracingOf(props) !== lambda.Tracing.ACTIVE) {
      Validations.of(fn).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason:
          'Tracing is off: the EMF metrics, JSON logs and dashboard cover each batch. Set openTelemetry (spans per record, docs/tracing.md) or tracing: Tracing.ACTIVE.',
      });
    }
  }
}

/** X-Ray's active tracing: the team's choice, on by default with OpenTelemetry (Lambda's own segment joins the trace). */
function tracingOf(props: KafkaConsumerProps): lambda.Tracing {
  return props.tracing ?? (props.openTelemetry ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED);
}
