/**
 * One key's pending events to Kafka, in the order their effects committed, each settled as published or
 * refused for good: the step both relays share (the DynamoDB relay's row-relay.ts, the Postgres relay's
 * lambdas/postgres/outbox/relay-round.ts). What a store does with the settled events (remove them, move
 * the refused ones to quarantine) is the store's.
 */
import { OUTBOX_EVENT_ID_HEADER } from '../core/outbox-rows.js';
import { type OutboxMessage, POISON_REASONS, type PoisonReason, type Publisher } from './publisher.js';

/** Why an event is quarantined: the poison reason and Kafka's message. */
export interface QuarantineCause {
  readonly reason: PoisonReason;
  readonly message: string;
}

/** What an event must carry to be sent. */
export interface SendableEvent {
  /** Sent as the `event_id` header. */
  readonly id: string;
  readonly value: string | Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
}

/** One key's events, oldest first. */
export interface KeyEvents<E extends SendableEvent> {
  readonly topic: string;
  /** The Kafka key: one key's records land on one partition. */
  readonly kafkaKey: string;
  readonly events: readonly E[];
}

/** An event the relay is done with: published, or to be quarantined. */
export interface Settled<E extends SendableEvent> {
  readonly event: E;
  readonly quarantine?: QuarantineCause;
}

/**
 * Sends the events in order, settling each as published or quarantined into `settled` as it goes, so a
 * caller that catches a throw (a send that may pass later) still knows what Kafka acknowledged before it.
 * All events go in one request (the caller bounds their bytes, and one key's records land on one
 * partition, appended all or none); a request refused for its messages is sent again one event at a time
 * to learn which one Kafka refuses, and the key's later events go on, so a poison event never blocks its
 * key (docs/outbox.md#poison-events).
 */
export async function publishInOrder<E extends SendableEvent>(
  key: KeyEvents<E>,
  publisher: Publisher,
  settled: Settled<E>[],
): Promise<void> {
  const { events } = key;
  if (events.length === 0) return;
  const outcome = await publisher.publish(
    key.topic,
    events.map((event) => messageOf(key.kafkaKey, event)),
  );
  if (outcome.kind === 'published') {
    for (const event of events) settled.push({ event });
    return;
  }
  const cause: QuarantineCause = { reason: outcome.reason, message: outcome.message };
  if (events.length === 1 || POISON_REASONS[outcome.reason] === 'topic') {
    // The topic refuses every event alike: no use sending them one by one.
    for (const event of events) settled.push({ event, quarantine: cause });
    return;
  }
  for (const [index, event] of events.entries()) {
    const alone = await publisher.publish(key.topic, [messageOf(key.kafkaKey, event)]);
    if (alone.kind === 'published') {
      settled.push({ event });
      continue;
    }
    const aloneCause: QuarantineCause = { reason: alone.reason, message: alone.message };
    if (POISON_REASONS[alone.reason] === 'topic') {
      for (const rest of events.slice(index)) settled.push({ event: rest, quarantine: aloneCause });
      return;
    }
    settled.push({ event, quarantine: aloneCause });
  }
}

/** The events Kafka acknowledged, in order. */
export function publishedOf<E extends SendableEvent>(settled: readonly Settled<E>[]): E[] {
  return settled.flatMap((entry) => (entry.quarantine ? [] : [entry.event]));
}

function messageOf(kafkaKey: string, event: SendableEvent): OutboxMessage {
  return {
    key: kafkaKey,
    value: event.value,
    // The id last, so no stored header can stand in for it.
    headers: { ...event.headers, [OUTBOX_EVENT_ID_HEADER]: event.id },
  };
}
