/**
 * MSK Inbox, the handler side: what a team's consumer imports. Everything else in lambdas/core is the
 * engine behind this surface and may change. Avro and Protobuf values have entries of their own
 * (`msk-inbox/avro`: avro-values.ts, `msk-inbox/protobuf`: protobuf-values.ts), so a JSON consumer's
 * bundle carries neither library.
 */

export type { BatchSummary } from './batch-summary.js';
export {
  createInboxConsumer,
  type InboxConsumerHandler,
  type InboxConsumerOptions,
  type InboxEffectInput,
  type SideEffectConsumerOptions,
} from './create-inbox-consumer.js';
export type { DecodeBudget } from './decode-budget.js';
export type { DecodedRecord, JsonParseResult, KafkaHeader, RawRecordView } from './decode-event.js';
export type {
  EffectPlan,
  EffectWrite,
  EffectWriteTarget,
  ItemKey,
  Lease,
  SideEffectPlan,
  SqlEffect,
  SqlResult,
  SqlTransaction,
} from './effect.js';
export { ConfigError, EffectRejectedError, InboxError, InvalidEventError } from './errors.js';
export type {
  KafkaBatchItemFailure,
  KafkaBatchResponse,
  KafkaEvent,
  KafkaEventRecord,
} from './kafka-event.js';
export { METRICS_NAMESPACE } from './metric-names.js';
export type { OutboxEvent } from './outbox-rows.js';
export type { OutcomeStatus, RecordOutcome } from './outcome.js';
export {
  type CarriedByProp,
  HANDLER_SETTINGS,
  type HandlerSettings,
  type SettingName,
  type SettingValue,
  type TunableSettings,
} from './settings.js';
export {
  DELETE_EXPIRED_ROWS_EVENT,
  type InboxStoreChoice,
  type SideEffectStoreChoice,
} from './store-choice.js';
export type {
  ConsumerTracer,
  InvocationTrace,
  TraceableClient,
  TracedInvocation,
} from './telemetry/consumer-tracer.js';
export type { ConsumerMetrics, MetricUnitName } from './telemetry/emf-metrics.js';
export type { ConsumerLogger, LogAttributes } from './telemetry/json-logger.js';
export { JSON_VALUES, type ParsedValue, type SchemaMetadata, type ValueFormat } from './value-format.js';
export type { Framing } from './wire-format.js';
