/**
 * `msk-inbox outbox ...` under test on DynamoDB Local: the relay's bench (test/support/relay-harness.ts: an
 * outbox table with its stream, the in-process broker, a manual clock), events appended by the consumer's
 * own appender (outboxAppends, in a TransactWriteItems as the store sends it) and quarantined by the real
 * relay (relayBatch with the broker refusing them), the commands run in this process.
 */
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { outboxAppends } from '../../../lambdas/core/outbox-appends.js';
import { outboxEventId } from '../../../lambdas/core/outbox-event-id.js';
import type { OutboxEvent } from '../../../lambdas/core/outbox-rows.js';
import { relayBatch } from '../../../lambdas/outbox-relay/relay-batch.js';
import { runOperator } from '../../../operator/operator-main.js';
import { CONSUMER, type RelayHarness, TOPIC } from '../../support/relay-harness.js';
import { collectingIo } from './postgres-harness.js';

export { CONSUMER, TOPIC };

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
  const appends = outboxAppends(
    { tableName: h.bench.tableName, consumer: CONSUMER },
    dedupKey,
    events,
    h.clock.nowMs(),
  );
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

/** Runs `msk-inbox ARGV` on the bench's table as consumer `orders` (unless ARGV names one), at `nowMs`. */
export async function outboxCli(h: RelayHarness, argv: readonly string[], nowMs = h.clock.nowMs()) {
  const { io, run } = collectingIo(undefined, () => nowMs);
  const consumer = argv.includes('--consumer') ? [] : ['--consumer', CONSUMER];
  const where = ['--endpoint', inject('dynamoDbEndpoint'), '--outbox-table', h.bench.tableName];
  return run(await runOperator([...argv, ...where, ...consumer], io));
}

/** `outbox list --json` and `outbox quarantined --json`, parsed. */
export async function listed(h: RelayHarness, argv: readonly string[] = [], nowMs?: number) {
  return JSON.parse((await outboxCli(h, ['outbox', 'list', '--json', ...argv], nowMs)).out) as {
    keys: {
      consumer: string;
      topic: string;
      key: string;
      events: number;
      bytes: number;
      oldestAgeMs: number;
      headId: string;
    }[];
    total: { keys: number; events: number; bytes: number; oldestAgeMs: number };
  };
}

export async function quarantinedIds(h: RelayHarness): Promise<string[]> {
  const parsed = JSON.parse((await outboxCli(h, ['outbox', 'quarantined', '--json'])).out) as {
    events: { id: string }[];
  };
  return parsed.events.map((event) => event.id);
}
