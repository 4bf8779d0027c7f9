/**
 * What a KafkaConsumer takes, its defaults, and the checks that fail synth with a message saying what to
 * change; the handler's settings are checked against their one definition (lambdas/core/settings.ts).
 */

import { Duration, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { DEFAULT_DEDUP_TTL_SECONDS } from '../lambdas/core/inbox-rows.js';
import { HANDLER_SETTINGS, SETTING_VARIABLES, type TunableSettings } from '../lambdas/core/settings.js';
import {
  type EventSourceOptions,
  eventSourceOptionProblems,
  type ProvisionedPollers,
} from './event-source-options.js';
import { DEFAULT_CONSUMER_MEMORY_MB } from './function-defaults.js';
import { inboxProblems, storeVariables } from './inbox-choice.js';
import type { InboxTable } from './inbox-table.js';
import { CONSUMER_GROUP_ID, KAFKA_TOPIC } from './kafka-names.js';
import { type KafkaSource, validateSource } from './kafka-source.js';
import { adotLayerArnProblem, OPEN_TELEMETRY_VARIABLES, type OpenTelemetryProps } from './open-telemetry.js';
import type { OutboxTable } from './outbox-table.js';
import type { PostgresInboxProps } from './postgres-props.js';
import type { RedisInboxProps } from './redis-props.js';

export type HandlerLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export type { ProvisionedPollers } from './event-source-options.js';

/** What a KafkaConsumer takes; the event source options (filters, schema registry, destination) are in EventSourceOptions. */
export interface KafkaConsumerProps extends EventSourceOptions {
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
  /**
   * A DynamoDB inbox: the function gets PutItem, UpdateItem, DeleteItem and GetItem on it, nothing else.
   * Give this, `postgres` or `redis`: one of them.
   * @default - none: then `postgres` or `redis` is required
   */
  readonly inboxTable?: InboxTable;
  /**
   * An inbox in your existing Postgres database, for a handler created with `store: postgresInbox()`:
   * the function is placed in its VPC, let in on its port, granted one way to log in, given the
   * `POSTGRES_*` variables, and sent DELETE_EXPIRED_ROWS_EVENT on a schedule; no DynamoDB access.
   * Give this, `inboxTable` or `redis`: one of them (docs/deploy.md#with-postgres).
   * @default - none: then `inboxTable` or `redis` is required
   */
  readonly postgres?: PostgresInboxProps;
  /**
   * An inbox in your existing Redis or Valkey cache (ElastiCache Serverless, node-based ElastiCache,
   * MemoryDB), for a handler created with `store: redisInbox()`, whose effects are calls: the function is
   * placed in the cache's VPC, let in on its port, granted one way to log in, and given the `REDIS_*`
   * variables; no DynamoDB access. Give this, `inboxTable` or `postgres`: one of them
   * (docs/redis.md#deploying).
   * @default - none: then `inboxTable` or `postgres` is required
   */
  readonly redis?: RedisInboxProps;
  /**
   * The outbox the effect's emitted events are appended to, in the transaction of its inbox row
   * (docs/outbox.md): the function gets UpdateItem on it and `OUTBOX_TABLE_NAME`. With `inboxTable` only:
   * with `postgres` the outbox is in the consumer's schema, published by PostgresOutboxRelay.
   * @default - none: the effect emits no events
   */
  readonly outbox?: OutboxTable;
  /**
   * Your handler's source file (`export const handler = createInboxConsumer(...)`). The role gets the
   * inbox, the mapping and the failure bucket; grant what your effect writes yourself, action by action,
   * on `role` (least privilege: `consumer.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions:
   * ['dynamodb:UpdateItem'], resources: [table.tableArn] }))`), and pass its table names in `environment`.
   */
  readonly entry: string;
  /**
   * The lock file that pins what is bundled (the AWS SDK included).
   * @default - the lock file CDK finds from the working directory up (your project's)
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
   * @default Duration.millis(DEADLINE_MARGIN_MS default, 3000: lambdas/core/settings.ts)
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
   * source and concurrency, lease margin, completed-key cache, dedup header, field and fallback; not those
   * a prop above carries. Checked at synth by the handler's own check, with what the props give it.
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
   * @default lambda.Tracing.ACTIVE with `openTelemetry`, else lambda.Tracing.DISABLED
   */
  readonly tracing?: lambda.Tracing;
  /**
   * Exports the consumer's spans (`tracing: openTelemetryTracing()` in the handler, docs/tracing.md): the ADOT
   * layer registers the OpenTelemetry SDK before the handler loads and sends spans to an OTLP endpoint, X-Ray's
   * by default, which the role may then write to.
   * @default - none: the handler's spans, if any, record nowhere
   */
  readonly openTelemetry?: OpenTelemetryProps;
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
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'NODE_OPTIONS',
] as const;

const MAX_RECORD_AGE_LIMIT_SECONDS = 604_800;

export interface ResolvedSettings {
  readonly timeout: Duration;
  readonly deadlineMargin: Duration;
  readonly dedupTtl: Duration;
  readonly maxRecordAge: Duration;
  readonly batchSize: number;
  readonly retryAttempts: number;
  readonly memorySize: number;
  readonly pollers: {
    readonly minimumPollers: number;
    readonly maximumPollers: number;
    readonly pollerGroupName?: string;
  };
}

export function resolveSettings(props: KafkaConsumerProps): ResolvedSettings {
  const pollers = props.provisionedPollers === false ? undefined : props.provisionedPollers;
  return {
    timeout: props.timeout ?? Duration.minutes(1),
    deadlineMargin: props.deadlineMargin ?? Duration.millis(HANDLER_SETTINGS.deadlineMarginMs.default),
    dedupTtl: props.dedupTtl ?? Duration.seconds(DEFAULT_DEDUP_TTL_SECONDS),
    maxRecordAge: props.maxRecordAge ?? Duration.days(1),
    batchSize: props.batchSize ?? 100,
    retryAttempts: props.retryAttempts ?? 10,
    memorySize: props.memorySize ?? DEFAULT_CONSUMER_MEMORY_MB,
    pollers: {
      minimumPollers: pollers?.minimumPollers ?? 1,
      maximumPollers: pollers?.maximumPollers ?? 2,
      ...(pollers?.pollerGroupName === undefined ? {} : { pollerGroupName: pollers.pollerGroupName }),
    },
  };
}

export function validate(props: KafkaConsumerProps, s: ResolvedSettings): string[] {
  const problems: string[] = [];
  const fail = (problem: string): void => {
    problems.push(problem);
  };
  const known = (value: string): boolean => !Token.isUnresolved(value);

  if (known(props.topic) && !KAFKA_TOPIC.test(props.topic)) {
    fail(`topic "${props.topic}" is not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ -`);
  }
  if (known(props.consumerGroupId) && !CONSUMER_GROUP_ID.test(props.consumerGroupId)) {
    fail(
      `consumerGroupId "${props.consumerGroupId}" must be 1-200 characters of a-z A-Z 0-9 - / * : _ + = . @`,
    );
  }
  problems.push(...inboxProblems(props));
  problems.push(...validateSource(props.source));
  problems.push(...eventSourceOptionProblems(props, props.topic));

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
    const group = s.pollers.pollerGroupName;
    if (group !== undefined && known(group) && group.trim() === '') {
      fail(
        'provisionedPollers.pollerGroupName is empty: name the group, or leave it out for pollers of its own',
      );
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
  // Whole seconds and the handler's bounds: the settings check (DEDUP_TTL_SECONDS).
  const dedupSeconds = s.dedupTtl.toSeconds({ integral: false });
  if (dedupSeconds < maxRecordAgeSeconds) {
    fail(
      `dedupTtl (${dedupSeconds}s) is shorter than maxRecordAge (${maxRecordAgeSeconds}s): a record retried after its dedup row expired would be applied twice; raise dedupTtl or lower maxRecordAge`,
    );
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
    props.startingPosition === lambda.StartingPosition.AT_TIMESTAMP &&
    props.startingPositionTimestamp === undefined
  ) {
    fail('startingPosition is AT_TIMESTAMP: also set startingPositionTimestamp (Unix seconds)');
  }
  const layerProblem = props.openTelemetry && adotLayerArnProblem(props.openTelemetry.adotLayerArn);
  if (layerProblem) fail(layerProblem);
  const reserved: readonly string[] = [
    ...RESERVED_ENV,
    ...storeVariables(props),
    ...(props.openTelemetry ? OPEN_TELEMETRY_VARIABLES : []),
  ];
  const overridden = Object.keys(props.environment ?? {}).filter((key) => reserved.includes(key));
  if (overridden.length > 0) {
    fail(`environment sets ${overridden.join(', ')}: these come from the construct's props; remove them`);
  }
  return problems;
}
