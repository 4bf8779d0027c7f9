/**
 * The operator commands run in this process against DynamoDB Local (test/support/dynamodb.ts): a table
 * seeded with real quarantine rows written by a real consumer (fixtures/orders-handler.ts).
 */
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import type { KafkaBatchResponse, KafkaEvent } from '../../../lambdas/core/kafka-event.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import type { OperatorIo } from '../../../operator/commands/operator-io.js';
import { runOperator } from '../../../operator/operator-main.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import type { TestTables } from '../../support/dynamodb.js';

export const CONSUMER = 'orders';
export const HANDLER_FILE = join(import.meta.dirname, 'fixtures', 'orders-handler.ts');
/** The orders handler behind a dependency that fails for the events in FAIL_EVENT_IDS (failingFor sets it). */
export const FLAKY_HANDLER_FILE = join(import.meta.dirname, 'fixtures', 'flaky-orders-handler.ts');

/** Runs `work` while the flaky handler fails for `eventIds` (comma-separated), then fixes the cause. */
export async function failingFor<T>(eventIds: string, work: () => Promise<T>): Promise<T> {
  process.env.FAIL_EVENT_IDS = eventIds;
  try {
    return await work();
  } finally {
    delete process.env.FAIL_EVENT_IDS;
  }
}

export interface Run {
  readonly code: number;
  readonly out: string;
  readonly notes: string;
}

/**
 * Runs one command line; `answer` is what a person types at a confirmation (undefined: no terminal);
 * `nowMs` is the command's clock (an aged batch is one read later).
 */
export async function operator(
  tables: TestTables,
  endpoint: string,
  argv: readonly string[],
  answer?: string,
  nowMs: () => number = Date.now,
): Promise<Run> {
  const out: string[] = [];
  const notes: string[] = [];
  const io: OperatorIo = {
    print: (text) => out.push(text),
    note: (text) => notes.push(text),
    ask: async () => answer,
    nowMs,
    user: () => 'test-operator',
  };
  const code = await runOperator(
    [...argv, '--endpoint', endpoint, '--table', tables.inboxTableName, '--consumer', CONSUMER],
    io,
  );
  return { code, out: out.join('\n'), notes: notes.join('\n') };
}

/** How often the fixture consumer applied the order of `eventId` (its app table row), undefined if never. */
export async function appliedCountOf(tables: TestTables, eventId: string): Promise<number | undefined> {
  return (await tables.get(tables.appTableName, `order#${eventId}`))?.applied as number | undefined;
}

/** The function's environment for the fixture consumer, set before it is first imported. */
export function useConsumerEnvironment(tables: TestTables, endpoint: string): void {
  Object.assign(process.env, {
    INBOX_TABLE_NAME: tables.inboxTableName,
    CONSUMER_NAME: CONSUMER,
    APP_TABLE_NAME: tables.appTableName,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    ORDERS_MAX_AMOUNT: '100',
  });
}

/**
 * Delivers an event to the fixture consumer, as the ESM would, its records stamped `timestampMs` (now,
 * as the broker would stamp them): the event helpers' fixed default (2023) is older than any dedup window,
 * and a replay refuses records past it (docs/operate.md#replay).
 */
export async function deliver(
  event: KafkaEvent,
  timestampMs = Date.now(),
  consumer?: (event: KafkaEvent, context: Context) => Promise<KafkaBatchResponse>,
): Promise<KafkaBatchResponse> {
  const handler = consumer ?? (await import('./fixtures/orders-handler.js')).handler;
  const stamped: KafkaEvent = {
    ...event,
    records: Object.fromEntries(
      Object.entries(event.records).map(([key, records]) => [
        key,
        records.map((record) => ({ ...record, timestamp: timestampMs })),
      ]),
    ),
  };
  return handler(stamped, lambdaContext(new ManualClock(Date.now())));
}
