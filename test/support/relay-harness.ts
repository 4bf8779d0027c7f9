/**
 * The relay's loop under test on DynamoDB Local: a fresh outbox table with its stream, the in-process
 * broker, a manual clock, the log lines, and reads of the rows as the assertions need them.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_ATTRIBUTES as A, outboxQuarantineKey } from '../../lambdas/core/outbox-rows.js';
import type { RelayBatchDeps } from '../../lambdas/outbox-relay/relay-batch.js';
import { ManualClock } from './clocks.js';
import { FakePublisher } from './fake-publisher.js';
import {
  type AppendOptions,
  appendToOutbox,
  createOutboxBench,
  type OutboxBench,
  queueKey,
} from './outbox-relay.js';

export const CONSUMER = 'orders';
export const TOPIC = 'order-events';
/** A minute before the manual clock's start: every published event's lag is 60 s. */
export const COMMITTED_AT = Date.UTC(2026, 10, 29, 11, 59, 0);

export interface LogLine {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly details: Record<string, unknown>;
}

export interface RelayHarness {
  readonly bench: OutboxBench;
  readonly broker: FakePublisher;
  readonly clock: ManualClock;
  readonly logged: LogLine[];
  deps(overrides?: Partial<RelayBatchDeps>): RelayBatchDeps;
  /** A consumer's append of text or binary values for `key`, each with a `type` header; the ids. */
  append(
    key: string,
    source: string,
    values: (string | Uint8Array)[],
    extra?: Partial<AppendOptions>,
  ): Promise<string[]>;
  /** The queue row of `key` on TOPIC, read consistently, or undefined. */
  queueRow(key: string): Promise<Record<string, unknown> | undefined>;
  /** The quarantine row of an event, or undefined. */
  quarantineRow(id: string): Promise<Record<string, unknown> | undefined>;
}

export async function relayHarness(): Promise<RelayHarness> {
  const bench = await createOutboxBench();
  const broker = new FakePublisher();
  const clock = new ManualClock();
  const logged: LogLine[] = [];
  const get = async (pk: string) => {
    const { Item } = await bench.client.send(
      new GetItemCommand({ TableName: bench.tableName, Key: { [A.pk]: { S: pk } }, ConsistentRead: true }),
    );
    return Item ? unmarshall(Item) : undefined;
  };
  return {
    bench,
    broker,
    clock,
    logged,
    deps: (overrides = {}) => ({
      table: { client: bench.client, tableName: bench.tableName },
      publisher: broker,
      clock,
      log: {
        warn: (message, details) => logged.push({ level: 'warn', message, details }),
        error: (message, details) => logged.push({ level: 'error', message, details }),
      },
      ...overrides,
    }),
    append: (key, source, values, extra = {}) =>
      appendToOutbox(bench.client, bench.tableName, {
        consumer: CONSUMER,
        topic: TOPIC,
        key,
        source,
        events: values.map((value) => ({ value, headers: { type: 'order-shipped' } })),
        committedAt: COMMITTED_AT,
        ...extra,
      }),
    queueRow: (key) => get(queueKey(CONSUMER, TOPIC, key)),
    quarantineRow: (id) => get(outboxQuarantineKey(CONSUMER, id)),
  };
}

/** The ids a queue row holds, oldest first. */
export function rowIds(row: Record<string, unknown> | undefined): string[] {
  return ((row?.[A.events] as { id: string }[] | undefined) ?? []).map((event) => event.id);
}

export function sequenceNumbers(event: DynamoDBStreamEvent): string[] {
  return event.Records.map((record) => record.dynamodb?.SequenceNumber as string);
}
