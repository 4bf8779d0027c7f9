/**
 * The front door, against DynamoDB Local: a consumer written with the public entry's options alone, a
 * Standard Schema (zod) and an effect, built through createObservedInboxConsumer for the test's clock and
 * outcomes.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import {
  ConfigError,
  createInboxConsumer,
  type InboxConsumerOptions,
  type RecordOutcome,
} from '../../../lambdas/core/index.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});

const Payment = z.object({ payment_id: z.string().min(1), cents: z.number().int().positive() });

function consumer<S extends StandardSchemaV1 | undefined>(
  name: string,
  options: Omit<InboxConsumerOptions<S>, 'settings'>,
) {
  let outcomes: readonly RecordOutcome[] = [];
  const clock = new ManualClock();
  const handler = createObservedInboxConsumer(
    {
      ...options,
      settings: { inboxTableName: tables.inboxTableName, consumerName: name },
      dynamoDb: tables.client,
      logger: new Logger({ logLevel: 'SILENT' }),
    },
    {
      clock,
      observe: {
        batchProcessed: (_summary, batch) => {
          outcomes = batch;
        },
      },
    },
  );
  return {
    invoke: (event: unknown) => handler(event, lambdaContext(clock, 60_000)),
    outcomes: () => outcomes.map((o) => `${o.offset} ${o.status}${o.reason ? ` ${o.reason}` : ''}`),
    details: () => outcomes.map((o) => o.detail),
  };
}

describe('createInboxConsumer', () => {
  it('validates each value with the Standard Schema before the effect, quarantining a refusal with its paths', async () => {
    const seen: { payment_id: string; cents: number }[] = [];
    const payments = consumer('payments', {
      schema: Payment,
      effect: ({ event }) => {
        seen.push(event);
        return {
          kind: 'transact',
          writes: [
            {
              Update: {
                TableName: tables.appTableName,
                Key: { pk: `payment#${event.payment_id}` },
                // Relative on purpose: only the inbox makes it once.
                UpdateExpression: 'SET cents = if_not_exists(cents, :zero) + :cents',
                ExpressionAttributeValues: { ':zero': 0, ':cents': event.cents },
              },
            },
          ],
        };
      },
    });
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'p-1' }, value: { payment_id: 'p-1', cents: 500 } },
      { offset: 2, headers: { event_id: 'p-2' }, value: { payment_id: '', cents: -1 } },
      { offset: 3, headers: { event_id: 'p-3' }, value: 'not json' },
    ]);

    const response = await payments.invoke(event);
    await payments.invoke(event);

    expect(response.batchItemFailures).toEqual([]);
    expect(payments.outcomes()).toEqual([
      '1 duplicate completed',
      '2 quarantined invalid-event',
      '3 quarantined invalid-event',
    ]);
    // Only valid events reach the effect (typed by the schema); the second delivery is answered by the
    // container's cache of completed keys: no plan, no request.
    expect(seen).toEqual([{ payment_id: 'p-1', cents: 500 }]);
    expect((await tables.get(tables.appTableName, 'payment#p-1'))?.cents).toBe(500);
    // The paths, never a message: some schema libraries quote the value in theirs.
    expect(payments.details()[1]).toMatch(/^invalid at payment_id, cents( \(quarantined earlier\))?$/);
  });

  it('gives the effect the parsed JSON without a schema, and skips before it what `skip` says is not its own', async () => {
    const seen: unknown[] = [];
    const any = consumer('any-json', {
      skip: (record) => (record.header('kind')?.toString() === 'audit' ? 'audit-event' : undefined),
      effect: ({ event }) => {
        seen.push(event);
        return { kind: 'transact', writes: [] };
      },
    });

    await any.invoke(
      kafkaEvent([
        { offset: 1, headers: { event_id: 'j-1' }, value: { anything: [1, 2] } },
        { offset: 2, headers: { event_id: 'j-2', kind: 'audit' }, value: 'not json either' },
      ]),
    );

    expect(any.outcomes()).toEqual(['1 processed', '2 skipped audit-event']);
    expect(seen).toEqual([{ anything: [1, 2] }]);
  });

  it('runs a side-effect under a lease with the event id as its idempotency key, once', async () => {
    const calls: string[] = [];
    const mailer = consumer('mailer', {
      effect: ({ dedupKey }) => ({ kind: 'call', run: async () => void calls.push(dedupKey) }),
    });
    const event = kafkaEvent([{ offset: 1, headers: { event_id: 'mail-1' }, value: { to: 'x' } }]);

    await mailer.invoke(event);
    await mailer.invoke(event);

    expect(calls).toEqual(['mail-1']);
    expect(mailer.outcomes()).toEqual(['1 duplicate completed']);
  });

  it('quarantines, never retries, a record whose value makes the schema throw', async () => {
    const throwing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      },
    };
    const fragile = consumer('fragile', {
      schema: throwing,
      effect: () => ({ kind: 'transact', writes: [] }),
    });

    const response = await fragile.invoke(
      kafkaEvent([{ offset: 1, headers: { event_id: 'deep-1' }, value: { a: 1 } }]),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(fragile.outcomes()).toEqual(['1 quarantined invalid-event']);
    expect(fragile.details()).toEqual(['the schema threw RangeError']);
  });

  it('refuses a sql plan on the DynamoDB store as systemic: reported for a retry, never quarantined', async () => {
    let ran = false;
    const misplaced = consumer('misplaced-sql', {
      effect: () => ({
        kind: 'sql',
        run: async () => {
          ran = true;
        },
      }),
    });

    const response = await misplaced.invoke(
      kafkaEvent([{ offset: 1, headers: { event_id: 'sql-1' }, value: { a: 1 } }]),
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: { partition: 'orders-0', offset: 1 } }]);
    expect(misplaced.outcomes()).toEqual(['1 failed systemic-store-error']);
    expect(misplaced.details()).toEqual([expect.stringMatching(/needs a SQL store: .*postgresInbox/)]);
    expect(ran).toBe(false);
    const rows = await tables.scan(tables.inboxTableName);
    expect(rows.filter((row) => String(row.pk).startsWith('misplaced-sql'))).toEqual([]);
  });

  it('fails at cold start with one ConfigError naming every missing or bad setting', () => {
    expect(() =>
      createInboxConsumer({
        settings: { partitionConcurrency: 0 },
        effect: () => ({ kind: 'transact', writes: [] }),
      }),
    ).toThrow(ConfigError);
    expect(() =>
      createInboxConsumer({
        settings: { partitionConcurrency: 0 },
        effect: () => ({ kind: 'transact', writes: [] }),
      }),
    ).toThrow(
      /INBOX_TABLE_NAME is required; CONSUMER_NAME is required; PARTITION_CONCURRENCY "0" must be a whole number from 1 to 256/,
    );
  });
});
