/**
 * The attribute names the consumer's spans carry, from OpenTelemetry's semantic conventions as
 * @opentelemetry/semantic-conventions 1.45.0 names them (docs/tracing.md#attributes). Written out here, not
 * imported: the messaging and Kafka names sit in that package's incubating entry, which is large and whose
 * names have moved between versions (messaging.kafka.message.offset, then messaging.kafka.offset, now
 * kafka.offset). What the conventions do not name is ours, under `msk_inbox.`.
 */
import type { OutcomeStatus } from '../core/outcome.js';

/** Every attribute name the consumer's spans carry, one definition each. */
export const ATTR = {
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  destinationName: 'messaging.destination.name',
  partitionId: 'messaging.destination.partition.id',
  consumerGroup: 'messaging.consumer.group.name',
  batchMessageCount: 'messaging.batch.message_count',
  bodySize: 'messaging.message.body.size',
  kafkaOffset: 'kafka.offset',
  kafkaMessageKey: 'kafka.message.key',
  faasTrigger: 'faas.trigger',
  faasInvocationId: 'faas.invocation_id',
  cloudResourceId: 'cloud.resource_id',
  rpcSystem: 'rpc.system',
  rpcService: 'rpc.service',
  rpcMethod: 'rpc.method',
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  dbBatchSize: 'db.operation.batch.size',
  dynamoDbTableNames: 'aws.dynamodb.table_names',
  awsRequestId: 'aws.request_id',
  consumerName: 'msk_inbox.consumer',
  outcome: 'msk_inbox.outcome',
  outcomeStatus: 'msk_inbox.outcome.status',
  outcomeReason: 'msk_inbox.outcome.reason',
  dedupKey: 'msk_inbox.dedup_key',
  transactionRecords: 'msk_inbox.transaction.records',
  requestAttempts: 'msk_inbox.request.attempts',
  cancellationReasons: 'msk_inbox.dynamodb.cancellation_reasons',
  linkRole: 'msk_inbox.link',
} as const;

/** What a link's `msk_inbox.link` says it points to: the producer's span, or a record a transaction carries. */
export const LINK_ROLE = { producer: 'producer', record: 'record' } as const;

/**
 * What happened to the record's dedup key, in the words an operator searches by; `unfinished` only on a
 * record whose batch failed as a whole before it had an outcome.
 */
export type DedupOutcome = 'applied' | 'duplicate' | 'quarantined' | 'skipped' | 'reported' | 'unfinished';

const DEDUP_OUTCOMES: Record<OutcomeStatus, DedupOutcome> = {
  processed: 'applied',
  duplicate: 'duplicate',
  quarantined: 'quarantined',
  skipped: 'skipped',
  'in-flight': 'reported',
  failed: 'reported',
  deferred: 'reported',
  blocked: 'reported',
};

export function dedupOutcomeOf(status: OutcomeStatus): DedupOutcome {
  return DEDUP_OUTCOMES[status];
}

/** Outcomes whose span is marked an error: the record failed, or can never succeed. */
export function isErrorOutcome(status: OutcomeStatus): boolean {
  return status === 'failed' || status === 'quarantined';
}
