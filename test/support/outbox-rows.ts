/**
 * Outbox rows as the real code writes them, on the relay's bench (relay-harness.ts): events appended by the
 * consumer's own appender (outboxAppends, in a TransactWriteItems as the store sends it) and quarantined
 * by the real relay (relayBatch, the in-process broker refusing them). For the operator's outbox tests.
 */
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { outboxAppends } from '../../lambdas/core/outbox-appends.js';
import { outboxEventId } from '../../lambdas/core/outbox-event-id.js';
import type { OutboxEvent } from '../../lambdas/core/outbox-rows.js';
import { relayBatch } from '../../lambdas/outbox-relay/relay-batch.js';
import { CONSUMER, type RelayHarness, TOPIC } from './relay-harness.js';

/** An event for TOPIC and `key`. */
export function shipped(key: string, value: string | Uint8Array): OutboxEvent {
  return { topic: TOPIC, key, value, headers: { type: 'order-shipped' } };
}

/** The consumer's append of a record's events, committed at the harness clock's time; their ids. */
export async function emit(
  h: RelayHarness,
  dedupKey: string,
  events: readonly OutboxEvent[],
): Promise<string[]> {
  const target = { tableName: h.bench.tableName, consumer: CONSUMER };
  const appends = outboxAppends(target, dedupKey, events, h.clock.nowMs());
  if (!appends.ok) throw new Error(appends.problem);
  await DynamoDBDocumentClient.from(h.bench.client).send(
    new TransactWriteCommand({ TransactItems: appends.writes as never }),
  );
  return events.map((_, position) => outboxEventId(CONSUMER, dedupKey, position));
}

/** The relay on the stream records since its last run, Kafka refusing the events of `refused` for good. */
export async function relay(h: RelayHarness, refused: readonly string[] = []) {
  h.broker.answer = (_topic, messages) =>
    messages.some((message) => refused.includes(message.headers.event_id as string))
      ? 'message-too-large'
      : 'published';
  return relayBatch(await h.bench.nextEvent(), h.deps());
}
