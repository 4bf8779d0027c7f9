/**
 * The front door: a team's consumer in one call. `createInboxConsumer({ schema, effect })` returns the
 * Lambda handler for an MSK (or self-managed Kafka) event source mapping: settings read once per cold
 * start, clients built once, each record validated by the team's Standard Schema (zod, valibot, ...)
 * before its effect, and the engine (inbox, partial batch response, telemetry) behind it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context } from 'aws-lambda';
import { boundedString } from './bounded-text.js';
import { CachingInboxStore } from './caching-inbox-store.js';
import { type Clock, systemClock } from './clock.js';
import { CompletedKeyCache } from './completed-key-cache.js';
import { EnvReader, type InboxConfig, readInboxConfig } from './config.js';
import type { DecodedRecord } from './decode-event.js';
import { dynamoDbClientConfig } from './dynamodb-client-config.js';
import { DynamoDbInboxStore } from './dynamodb-inbox-store.js';
import type { Effect, EffectPlan, SideEffectPlan } from './effect.js';
import { ConfigError, EffectRejectedError } from './errors.js';
import { type BatchTelemetry, createKafkaBatchHandler } from './kafka-batch-handler.js';
import type { KafkaBatchResponse } from './kafka-event.js';
import { BATCH_METRICS, METRICS_NAMESPACE } from './metric-names.js';
import {
  HANDLER_SETTINGS,
  type HandlerSettings,
  SETTING_VARIABLES,
  type StoreKind,
  settingsEnvironment,
} from './settings.js';
import {
  type InboxStoreChoice,
  isDeleteExpiredRowsEvent,
  type SideEffectStoreChoice,
  storeFactoryOf,
} from './store-choice.js';
import { batchTelemetry } from './telemetry/batch-telemetry.js';
import type { ConsumerTracer } from './telemetry/consumer-tracer.js';
import { type ConsumerMetrics, EmfMetrics, metricsDisabledBy } from './telemetry/emf-metrics.js';
import { type ConsumerLogger, JsonLogger } from './telemetry/json-logger.js';
import { JSON_VALUES, type ValueFormat, valueFieldProblems } from './value-format.js';

/** What the effect gets for one record. */
export interface InboxEffectInput<Event> {
  /** The value, read by the value format (JSON by default) and, with a schema, validated and typed by it. */
  readonly event: Event;
  /** The record as decoded: coordinates, key, headers, the raw value. */
  readonly record: DecodedRecord;
  /** The event's stable id (the `event_id` header or field): an idempotency key for calls outside DynamoDB. */
  readonly dedupKey: string;
}

export interface InboxConsumerOptions<Schema extends StandardSchemaV1 | undefined = undefined> {
  /**
   * What the record does: `transact` (writes committed with the inbox row in one transaction),
   * `idempotent` (writes that change nothing when applied twice, no inbox row), `call` (a side-effect
   * under a fenced lease) or `skip` (acked, nothing written). Throwing EffectRejectedError,
   * here or in a `call`'s `run`, quarantines the record; throwing anything else retries it.
   */
  readonly effect: (
    input: InboxEffectInput<Schema extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<Schema> : unknown>,
  ) => EffectPlan | Promise<EffectPlan>;
  /**
   * Any Standard Schema (zod 4, valibot, arktype): a value it refuses is quarantined as `invalid-event`
   * with the issues' paths, before the effect runs.
   * @default - none: `event` is the parsed value; a value the format cannot read is quarantined
   */
  readonly schema?: Schema;
  /**
   * How the value bytes are read: `avroValues(...)` from `msk-inbox/avro`, `protobufValues(...)` from
   * `msk-inbox/protobuf`, each with its schema in code and the schema registries' wire formats stripped
   * (docs/design.md#value-formats). A value the format cannot decode is quarantined as `undecodable`.
   * @default - JSON (also what Lambda hands over with a schema registry and `EventRecordFormat: JSON`)
   */
  readonly valueFormat?: ValueFormat;
  /**
   * Says from the raw record (headers, key, the value as its format reads it, unvalidated) that it is not
   * this consumer's at all, e.g. another event type on a shared topic: acked, nothing written. It runs
   * before the dedup key is looked for and before the schema, so such a record is never quarantined for
   * lacking your id or failing your schema. Return a short fixed reason (it is logged), or undefined to
   * process the record. To pass over a valid event of your own, the effect returns `{ kind: 'skip' }`.
   * @default - every record is this consumer's
   */
  readonly skip?: (record: DecodedRecord) => string | undefined;
  /**
   * Handler settings in code (lambdas/core/settings.ts), over those of the environment.
   * @default - the environment's, read once at cold start (the KafkaConsumer construct sets them)
   */
  readonly settings?: Partial<HandlerSettings>;
  /**
   * Where the inbox is kept, when not in DynamoDB: `postgresInbox()` from `msk-inbox/postgres`, so a `sql`
   * effect commits with the inbox row in the business database's own transaction.
   * @default - DynamoDB, the table named by INBOX_TABLE_NAME
   */
  readonly store?: InboxStoreChoice;
  /** @default a client with the settings of lambdas/core/dynamodb-client-config.ts */
  readonly dynamoDb?: DynamoDBClient;
  /**
   * Where the consumer's log lines go: a Powertools Logger fits, as does anything with `info`, `warn` and
   * `error` (and `addContext`, called with each invocation's context).
   * @default JSON lines as Powertools Logger writes them (lambdas/core/telemetry/json-logger.ts), service the
   * consumer's name, level from AWS_LAMBDA_LOG_LEVEL, POWERTOOLS_LOG_LEVEL or INFO; no Powertools code bundled
   */
  readonly logger?: ConsumerLogger;
  /**
   * Where the consumer's metrics go: Powertools Metrics fits, as does anything with `addMetric` and
   * `publishStoredMetrics` (called once per invocation, after the batch or its failure).
   * @default EMF as Powertools Metrics writes it (lambdas/core/telemetry/emf-metrics.ts): namespace
   * POWERTOOLS_METRICS_NAMESPACE or `MskInbox`, dimension service, off under POWERTOOLS_METRICS_DISABLED
   */
  readonly metrics?: ConsumerMetrics;
  /**
   * Spans for each invocation, partition batch, record (linked to the producer's `traceparent`) and store
   * request: `openTelemetryTracing()` from `msk-inbox/opentelemetry`, exported by whatever OpenTelemetry
   * SDK the function registers (the ADOT layer the KafkaConsumer's `tracing` prop adds). docs/tracing.md
   * @default none: no tracing code is bundled
   */
  readonly tracing?: ConsumerTracer;
}

/**
 * What tests, the soak and the poison harness add to a consumer, through createObservedInboxConsumer:
 * not in the public options, because a deployed consumer has no use for either.
 */
export interface InboxConsumerHooks {
  /** Time for leases, TTLs and the completed-key cache, so a test can move it. @default the system clock */
  readonly clock?: Clock;
  /** Another observer of each batch's outcomes, besides the logs and metrics. */
  readonly observe?: BatchTelemetry;
}

/**
 * A consumer on a store that keeps no database's writes (`redisInbox()`): its effect may only `call` or
 * `skip`, so a `transact` or `sql` plan is a type error where it is written.
 */
export type SideEffectConsumerOptions<Schema extends StandardSchemaV1 | undefined = undefined> = Omit<
  InboxConsumerOptions<Schema>,
  'effect' | 'store'
> & {
  readonly store: SideEffectStoreChoice;
  readonly effect: (
    input: InboxEffectInput<Schema extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<Schema> : unknown>,
  ) => SideEffectPlan | Promise<SideEffectPlan>;
};

export type InboxConsumerHandler = (event: unknown, context: Context) => Promise<KafkaBatchResponse>;

/** The Lambda handler of a consumer on a side-effect store (Redis): its effect may only call or skip. */
export function createInboxConsumer<Schema extends StandardSchemaV1 | undefined = undefined>(
  options: SideEffectConsumerOptions<Schema>,
): InboxConsumerHandler;
/** The Lambda handler of a consumer: one call, everything else is settings. */
export function createInboxConsumer<Schema extends StandardSchemaV1 | undefined = undefined>(
  options: InboxConsumerOptions<Schema>,
): InboxConsumerHandler;
export function createInboxConsumer(
  options:
    | InboxConsumerOptions<StandardSchemaV1 | undefined>
    | SideEffectConsumerOptions<StandardSchemaV1 | undefined>,
): InboxConsumerHandler {
  return createObservedInboxConsumer(options, {});
}

/** createInboxConsumer with the hooks of tests and harnesses; index.ts does not export it. */
export function createObservedInboxConsumer<Schema extends StandardSchemaV1 | undefined = undefined>(
  options: InboxConsumerOptions<Schema> | SideEffectConsumerOptions<Schema>,
  hooks: InboxConsumerHooks,
): InboxConsumerHandler {
  const valueFormat = options.valueFormat ?? JSON_VALUES;
  const config = inboxConfigOf(options.settings, valueFormat, options.store ? 'other' : 'dynamodb');
  refuseTransactionalSettings(options.store, config);
  const clock = hooks.clock ?? systemClock;
  const traced = (client: DynamoDBClient): DynamoDBClient => {
    options.tracing?.instrumentDynamoDb?.(client);
    return client;
  };
  const logger = options.logger ?? new JsonLogger({ serviceName: config.consumerName, env: process.env });
  const metrics =
    options.metrics ??
    new EmfMetrics({
      namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
      serviceName: config.consumerName,
      disabled: metricsDisabledBy(process.env),
    });
  const telemetry = fanOut(batchTelemetry(logger, metrics), hooks.observe);
  const store = new CachingInboxStore({
    store: options.store
      ? storeFactoryOf(options.store).create({
          consumer: config.consumerName,
          ttlSeconds: config.dedupTtlSeconds,
          clock,
          concurrency: config.partitionConcurrency,
          ...(options.tracing?.traceStoreRequest ? { traceRequest: options.tracing.traceStoreRequest } : {}),
        })
      : new DynamoDbInboxStore({
          client: DynamoDBDocumentClient.from(
            traced(options.dynamoDb ?? new DynamoDBClient(dynamoDbClientConfig(config))),
            {
              marshallOptions: { removeUndefinedValues: true },
            },
          ),
          tableName: config.inboxTableName,
          consumer: config.consumerName,
          ttlSeconds: config.dedupTtlSeconds,
          clock,
        }),
    // Lives as long as this handler, i.e. the Lambda container: redelivered duplicates cost no request.
    cache: new CompletedKeyCache(config.completedKeyCacheSize, clock),
    ttlSeconds: config.dedupTtlSeconds,
    clock,
  });
  const processBatch = createKafkaBatchHandler({
    ...config,
    store,
    ...(config.outboxTableName
      ? { outbox: { tableName: config.outboxTableName, consumer: config.consumerName } }
      : {}),
    effect: toEngineEffect(options),
    valueFormat,
    ...(options.skip ? { skipRecord: options.skip } : {}),
    clock,
    telemetry,
    ...(options.tracing ? { tracer: options.tracing } : {}),
    ...(config.consumerGroupId ? { consumerGroupId: config.consumerGroupId } : {}),
  });

  // What Powertools' middlewares did, without middy (its streaming support loads Node's web streams at every
  // cold start): the invocation's context on each line, never the event (its records are payload), and the
  // metrics published once per invocation, after the batch or after its failure.
  return async (event, context) => {
    logger.addContext?.(context);
    try {
      return isDeleteExpiredRowsEvent(event)
        ? await deleteExpiredRows(store, logger, context)
        : await processBatch(event, context);
    } catch (error) {
      // The whole batch is retried (an unusable envelope, a record no response can name): say why, once.
      logger.error('batch failed as a whole', error as Error);
      metrics.addMetric(BATCH_METRICS.failedBatches, 'Count', 1);
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

/** Expired rows one round of a scheduled run deletes, before it looks at the time left. */
const EXPIRED_ROWS_PER_ROUND = 50_000;
/** A scheduled run starts no round with less than this left: a round of bounded DELETEs ends well within it. */
const EXPIRED_ROWS_MARGIN_MS = 10_000;

/**
 * The schedule's run (DELETE_EXPIRED_ROWS_EVENT): rounds of bounded deletes while rows are left and time
 * allows, so deletion keeps up with a table that expires more rows per period than one round deletes; what
 * it deleted is logged, and answered in the shape of a batch response so the handler's type stays one.
 */
async function deleteExpiredRows(
  store: CachingInboxStore,
  logger: ConsumerLogger,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<KafkaBatchResponse> {
  let deleted = 0;
  let more = true;
  while (more && context.getRemainingTimeInMillis() > EXPIRED_ROWS_MARGIN_MS) {
    const round = await store.deleteExpiredRows(EXPIRED_ROWS_PER_ROUND);
    deleted += round.deleted;
    more = round.more;
  }
  logger.info('expired rows deleted', { deleted, more });
  return { batchItemFailures: [] };
}

/**
 * The engine's effect for a consumer's options: the value read by its format (one it cannot decode is
 * quarantined as `undecodable`; JSON that does not parse, as `invalid-event`), validated by the schema (a
 * refusal is quarantined as `invalid-event`), then the consumer's effect with the typed event.
 */
export function toEngineEffect<Schema extends StandardSchemaV1 | undefined>(
  options: Pick<InboxConsumerOptions<Schema> | SideEffectConsumerOptions<Schema>, 'schema' | 'effect'>,
): Effect {
  return async ({ record, dedupKey }) => {
    const event = await validated(record, options.schema);
    if (!event.ok) throw new EffectRejectedError(event.reason, event.message);
    return options.effect({ event: event.value as never, record, dedupKey });
  };
}

/**
 * The settings given, or the environment's; one ConfigError naming every problem, a field the value
 * format's schema lacks included (value-format.ts#valueFieldProblems).
 */
function inboxConfigOf(
  given: Partial<HandlerSettings> | undefined,
  valueFormat: ValueFormat,
  store: StoreKind,
): InboxConfig {
  // Settings in code go over the environment's (the KafkaConsumer construct sets those): one reading. Only
  // the settings' own variables are looked up: a copy of all of process.env costs a call into Node per
  // variable at cold start.
  const inCode = settingsEnvironment(given ?? {});
  const env: Record<string, string | undefined> = {};
  for (const variable of SETTING_VARIABLES) env[variable] = inCode[variable] ?? process.env[variable];
  const reader = new EnvReader(env);
  const config = readInboxConfig(reader, store);
  const { dedupKeyPolicy, ordering } = config;
  reader.add(
    valueFieldProblems(valueFormat, {
      dedupField: { name: dedupKeyPolicy.field, set: Boolean(env[HANDLER_SETTINGS.dedupField.env]?.trim()) },
      keyField:
        ordering.by === 'key' && ordering.keySource.from === 'field' ? ordering.keySource.field : undefined,
    }),
  );
  reader.done();
  return config;
}

/**
 * A side-effect store cannot commit events with an effect: an outbox configured for it is the setup's
 * mistake, refused at cold start in one line rather than at every record.
 */
function refuseTransactionalSettings(
  store: InboxStoreChoice | SideEffectStoreChoice | undefined,
  config: InboxConfig,
): void {
  if (store?.effects !== 'side-effects' || !config.outboxTableName) return;
  throw new ConfigError([
    `${HANDLER_SETTINGS.outboxTableName.env} is set, but emitted events commit with a transact or sql plan: ${store.whyNoTransactions}`,
  ]);
}

/** The most issues a quarantine message lists, and the longest message. */
const MAX_ISSUES = 10;
const MAX_ISSUES_BYTES = 1_000;

async function validated(
  record: DecodedRecord,
  schema: StandardSchemaV1 | undefined,
): Promise<
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string; readonly message: string }
> {
  const parsed = record.parsed;
  if (!parsed.ok) return { ok: false, reason: parsed.reason, message: parsed.error };
  if (schema === undefined) return { ok: true, value: parsed.value };
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(parsed.value);
  } catch (error) {
    // A schema that cannot judge a value (a recursive one on a value nested 100,000 deep overflows the
    // stack) can never judge it: the record is quarantined, never retried into a blocked partition.
    return {
      ok: false,
      reason: 'invalid-event',
      message: `the schema threw ${error instanceof Error ? error.name : typeof error}`,
    };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  // The paths only: some libraries (valibot, arktype) quote the received value in their messages, and this
  // text reaches the logs.
  const paths = result.issues.slice(0, MAX_ISSUES).map(pathOf);
  const more = result.issues.length > MAX_ISSUES ? ` and ${result.issues.length - MAX_ISSUES} more` : '';
  return {
    ok: false,
    reason: 'invalid-event',
    message: boundedString(`invalid at ${paths.join(', ')}${more}`, MAX_ISSUES_BYTES).text,
  };
}

function pathOf(issue: StandardSchemaV1.Issue): string {
  const segments = (issue.path ?? []).map((segment) =>
    typeof segment === 'object' && segment !== null ? String(segment.key) : String(segment),
  );
  return segments.length > 0 ? segments.join('.') : '(value)';
}

function fanOut(telemetry: BatchTelemetry, observer: BatchTelemetry | undefined): BatchTelemetry {
  if (!observer) return telemetry;
  return {
    batchProcessed(summary, outcomes) {
      telemetry.batchProcessed(summary, outcomes);
      observer.batchProcessed(summary, outcomes);
    },
  };
}
