/**
 * The Kafka error codes this front answers with (https://kafka.apache.org/protocol#protocol_error_codes).
 *
 * How kafkajs 2.2.4 surfaces the two a producer is meant to meet (src/protocol/error.js, src/retry/index.js,
 * src/producer/sendMessages.js, src/cluster/brokerPool.js), checked by
 * test/integration/kafka-wire/memory-broker.test.ts:
 *
 * - UNKNOWN_TOPIC_OR_PARTITION (3), in the Metadata response of a topic the broker lacks (and in Produce):
 *   kafkajs' table marks it retriable. The metadata refresh inside `send` throws a `KafkaJSProtocolError`
 *   (`type` 'UNKNOWN_TOPIC_OR_PARTITION', `code` 3, `retriable` true); the producer's retrier tries again
 *   `retry.retries` times (refreshing metadata each time), then rejects `send` with a
 *   `KafkaJSNumberOfRetriesExceeded` (`name` 'KafkaJSNumberOfRetriesExceeded', `retriable` false, the same
 *   message) whose `cause` is that `KafkaJSProtocolError`. Classify by `error.cause.type`.
 * - MESSAGE_TOO_LARGE (10), in the Produce response: kafkajs marks it not retriable, so the producer's
 *   retrier bails at once and `send` rejects with the `KafkaJSProtocolError` itself (`name`
 *   'KafkaJSProtocolError', `type` 'MESSAGE_TOO_LARGE', `code` 10, `retriable` false), no wrapper, no retry.
 *   Classify by `error.type`.
 */
export const KafkaErrorCode = {
  NONE: 0,
  /** The batch fails its CRC or its own lengths: a broker's CorruptRecordException. */
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  /** The batch is larger than the topic's max.message.bytes (RecordTooLargeException). */
  MESSAGE_TOO_LARGE: 10,
  /** An auto-created topic's name has characters Kafka does not allow. */
  INVALID_TOPIC_EXCEPTION: 17,
  /** acks other than -1, 0 or 1. */
  INVALID_REQUIRED_ACKS: 21,
  /** An ApiVersions request of a version this front does not speak (the client then tries an older one). */
  UNSUPPORTED_VERSION: 35,
  /**
   * A compressed batch. A real broker decompresses it; this front keeps no codecs and refuses it instead, with
   * a code kafkajs does not retry, so a producer configured with compression fails at once and visibly.
   */
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  /**
   * Anything but exactly one magic-2 batch per partition (what Produce v3+ requires), or a transactional or
   * control batch (this front has no transactions), or records whose offset deltas do not count 0, 1, 2...
   */
  INVALID_RECORD: 87,
} as const;

export type KafkaErrorCode = (typeof KafkaErrorCode)[keyof typeof KafkaErrorCode];
