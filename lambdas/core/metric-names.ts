/**
 * EMF metric names the handler emits (namespace `MskInbox` unless POWERTOOLS_METRICS_NAMESPACE says
 * otherwise; dimension `service` = the consumer name). The CDK dashboard and alarms read the same names.
 */
export const METRICS_NAMESPACE = 'MskInbox';

export const OUTCOME_METRICS = {
  processed: 'Processed',
  duplicate: 'Duplicates',
  'in-flight': 'InFlight',
  failed: 'Failed',
  quarantined: 'Quarantined',
  deferred: 'Deferred',
  blocked: 'Blocked',
  skipped: 'Skipped',
} as const;

export const EVENT_METRICS = {
  leaseLost: 'LeaseLost',
  payloadConflicts: 'PayloadConflicts',
} as const;

export const BATCH_METRICS = {
  /** Count: records in the invocation. */
  records: 'BatchRecords',
  /** Milliseconds: handler time for the whole batch. */
  duration: 'BatchDuration',
  /** Milliseconds: from the oldest record's Kafka timestamp to the end of its batch. */
  recordLatency: 'RecordLatency',
  /** Count: invocations that failed as a whole (bad envelope, an unreportable record); Lambda retries them. */
  failedBatches: 'FailedBatches',
} as const;
