/**
 * The Kafka event Lambda's event source mapping delivers, for MSK and self-managed Kafka, and the
 * partial batch response it honours. Declared here because @types/aws-lambda types key/value as
 * required and has no Kafka batch response (docs/aws-facts.md#the-kafka-event).
 */

/** https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html (event example) */
export interface KafkaEvent {
  readonly eventSource: 'aws:kafka' | 'SelfManagedKafka' | (string & {});
  /** Only for MSK. */
  readonly eventSourceArn?: string;
  readonly bootstrapServers?: string;
  /** Keyed by "<topic>-<partition>"; each array in offset order. */
  readonly records: Readonly<Record<string, readonly KafkaEventRecord[]>>;
}

export interface KafkaEventRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  readonly timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME' | (string & {});
  /** Base64; null or absent for a null key. */
  readonly key?: string | null;
  /** Base64; null or absent for a tombstone. */
  readonly value?: string | null;
  /** One-entry objects; the numbers are signed bytes (-128..127). */
  readonly headers?: readonly Readonly<Record<string, readonly number[]>>[];
}

/**
 * Kafka's itemIdentifier is an object, unlike SQS/Kinesis: a flat string retries the whole batch.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
 */
export interface KafkaBatchItemFailure {
  readonly itemIdentifier: { readonly partition: string; readonly offset: number };
}

export interface KafkaBatchResponse {
  readonly batchItemFailures: KafkaBatchItemFailure[];
}

/** The part of Lambda's context the engine needs. */
export interface InvocationClock {
  getRemainingTimeInMillis(): number;
}
