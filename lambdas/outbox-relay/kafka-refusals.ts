/**
 * Which of kafkajs's errors mean Kafka refused a send for good (the event is quarantined) and which may
 * pass (the stream record is retried). kafkajs 2.2.4 throws a KafkaJSProtocolError carrying the broker's
 * error `type` (node_modules/kafkajs/src/protocol/error.js), and its retrier wraps it: a non-retriable one
 * in a KafkaJSNonRetriableError, a retriable one, once the retries are spent, in a
 * KafkaJSNumberOfRetriesExceeded, each with the original as `cause` (src/retry/index.js). So the type is
 * looked for along the cause chain.
 *
 * Everything not named here is transient on purpose: a missing permission (TOPIC_AUTHORIZATION_FAILED,
 * SASL_AUTHENTICATION_FAILED), an unreachable broker, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT,
 * LEADER_NOT_AVAILABLE are fixed by time or by an operator, and quarantining every event meanwhile would
 * be worse than waiting (docs/outbox.md#poison-events).
 */
import type { PoisonReason } from './publisher.js';

/** The broker's error types that refuse a send for good, and the reason each is quarantined under. */
const POISON_TYPES: Readonly<Record<string, PoisonReason>> = {
  // The record (or the partition's record batch) is over the topic's max.message.bytes.
  MESSAGE_TOO_LARGE: 'message-too-large',
  // The batch is over the broker's segment size.
  RECORD_LIST_TOO_LARGE: 'record-list-too-large',
  // The broker's validation refused the record (e.g. a compacted topic's record without a key).
  INVALID_RECORD: 'invalid-record',
  // Retriable for kafkajs (a topic being created, a leader moving): it reaches the relay only after the
  // producer's retries, and kafka-publisher.ts confirms it on a fresh producer before it counts.
  UNKNOWN_TOPIC_OR_PARTITION: 'unknown-topic',
  INVALID_TOPIC_EXCEPTION: 'invalid-topic',
};

/** kafkajs nests at most twice (retrier over protocol error); a few more levels cost nothing. */
const MAX_CAUSE_DEPTH = 8;

export type KafkaRefusal =
  | { readonly kind: 'poison'; readonly reason: PoisonReason; readonly type: string }
  | { readonly kind: 'transient' };

/** The refusal a send's error stands for: poison when any error along its causes has a poison type. */
export function classifyKafkaError(error: unknown): KafkaRefusal {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const type = (current as { type?: unknown }).type;
    if (typeof type === 'string' && Object.hasOwn(POISON_TYPES, type)) {
      return { kind: 'poison', reason: POISON_TYPES[type] as PoisonReason, type };
    }
    const cause = (current as { cause?: unknown }).cause;
    if (cause === current) break;
    current = cause;
  }
  return { kind: 'transient' };
}
