/**
 * The relay's one port to Kafka: publish a key's events, in order, to their topic. The relay's logic
 * (relay-batch.ts, row-relay.ts) sees only this, so its tests run with an in-process fake; the deployed
 * relay uses kafka-publisher.ts.
 */
import { InboxError } from '../core/errors.js';

/** One event as it goes to Kafka. */
export interface OutboxMessage {
  /** The Kafka key (UTF-8): the queue row's `kafka_key`, so a key's events land on one partition. */
  readonly key: string;
  readonly value: string | Uint8Array;
  /** The effect's headers plus `event_id` (OUTBOX_EVENT_ID_HEADER). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Why Kafka refused events for good. `topic`: every event for the topic is refused alike (it does not
 * exist, or its name is invalid), so the relay quarantines the row's events without sending them one by
 * one. `message`: something in the request was refused (too large, invalid), and with several messages
 * in the request the relay sends them one by one to learn which.
 */
export const POISON_REASONS = {
  'message-too-large': 'message',
  'record-list-too-large': 'message',
  'invalid-record': 'message',
  'unknown-topic': 'topic',
  'invalid-topic': 'topic',
} as const satisfies Record<string, 'message' | 'topic'>;

export type PoisonReason = keyof typeof POISON_REASONS;

export type PublishOutcome =
  /** Every message was acknowledged by all in-sync replicas. */
  | { readonly kind: 'published' }
  /** None was written (a partition's records are appended all or none), and sending again cannot help. */
  | { readonly kind: 'poison'; readonly reason: PoisonReason; readonly message: string };

export interface Publisher {
  /**
   * Sends `messages`, all to `topic`, in this order, and resolves once they are acknowledged or refused
   * for good. Throws (a TransientPublishError, or anything else) when it could not tell: the broker
   * unreachable, a timeout, too few in-sync replicas. Some of the messages may then have been written,
   * which is why every event carries its id.
   */
  publish(topic: string, messages: readonly OutboxMessage[]): Promise<PublishOutcome>;
}

/** A send that may succeed later: the stream record is reported and Lambda retries it. */
export class TransientPublishError extends InboxError {}
