/**
 * Fuzzing the order consumer's deployed handler chain (createInboxConsumer; built here by
 * createObservedInboxConsumer) against DynamoDB Local with events no producer should send
 * (test/fuzz/support/malformed-events.ts). The engine's handler gets many more cases on the in-memory
 * store in test/fuzz/core/kafka-batch-handler.test.ts.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import { InvalidEventError } from '../../../lambdas/core/errors.js';
import { dedupRowKey, quarantineRowKey } from '../../../lambdas/core/inbox-rows.js';
import type { KafkaBatchResponse } from '../../../lambdas/core/kafka-event.js';
import { isReported, type RecordOutcome } from '../../../lambdas/core/outcome.js';
import { localDynamoDbClient } from '../../../local/dynamodb-local/client.js';
import { orderConsumer } from '../../../sample/order-consumer/order-placed.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import {
  asDelivered,
  badEnvelope,
  foreignIdentifiers,
  hashOf,
  NO_RESPONSE_PROBLEMS,
  recordsOf,
  rejectionOf,
  responseProblems,
  responseUnlessUnreportable,
  validEnvelope,
} from '../support/malformed-events.js';

// ── the handler under test, with a journal of the writes DynamoDB applied ──────────────────────────

interface Write {
  readonly pk: string;
  readonly applied: boolean;
}

interface Fixture {
  readonly consumer: string;
  readonly writes: Write[];
  invoke(event: unknown): Promise<KafkaBatchResponse>;
  outcomes(): readonly RecordOutcome[];
}

let tables: TestTables;
let cases = 0;

/**
 * A fresh consumer (its own CONSUMER_NAME, so its rows are its own) on a client that journals writes and
 * refuses those `refuse` picks. No SDK retries: the fuzz is about input, not backoff.
 */
function fixture(refuse: (pk: string) => boolean = () => false): Fixture {
  const consumer = `fuzz-${process.pid}-${cases++}`;
  const writes: Write[] = [];
  const client = journaledClient(writes, refuse);
  const clock = new ManualClock();
  let observed: readonly RecordOutcome[] = [];
  const handler = createObservedInboxConsumer(
    {
      ...orderConsumer(tables.appTableName),
      settings: { inboxTableName: tables.inboxTableName, consumerName: consumer },
      dynamoDb: client,
      logger: new Logger({ serviceName: consumer, logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'MskInboxFuzz', serviceName: consumer }),
    },
    {
      clock,
      observe: {
        batchProcessed: (_summary, outcomes) => {
          observed = outcomes;
        },
      },
    },
  );
  return {
    consumer,
    writes,
    invoke: (event) => handler(event, lambdaContext(clock)) as Promise<KafkaBatchResponse>,
    outcomes: () => observed,
  };
}

function journaledClient(writes: Write[], refuse: (pk: string) => boolean): DynamoDBClient {
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'), 1);
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const items = input.TransactItems as { Put?: Record<string, unknown> }[] | undefined;
      const item = (items?.[0]?.Put?.Item ?? input.Item) as { pk?: { S?: string } } | undefined;
      const pk = item?.pk?.S;
      if (pk === undefined) return next(args);
      if (refuse(pk)) {
        writes.push({ pk, applied: false });
        throw Object.assign(new Error('Service unavailable'), {
          name: 'ServiceUnavailable',
          $fault: 'server',
          $metadata: { httpStatusCode: 503 },
        });
      }
      const result = await next(args);
      // Still raw HTTP here: a failed condition is a 400 turned into an exception further out.
      const status = (result as { response?: { statusCode?: number } }).response?.statusCode ?? 0;
      writes.push({ pk, applied: status < 300 });
      return result;
    },
    { step: 'deserialize', name: 'fuzzJournal', priority: 'low' },
  );
  return client;
}

/** Every write DynamoDB applied belongs to an acked record: its quarantine row or its processed key. */
function writesOfReportedRecords(f: Fixture): string[] {
  const outcomes = f.outcomes();
  const ackedRows = new Set(
    outcomes
      .filter((o) => !isReported(o.status))
      .flatMap((o) => [
        ...(o.quarantineKey !== undefined ? [quarantineRowKey(f.consumer, o.quarantineKey)] : []),
        ...(o.dedupKey !== undefined ? [dedupRowKey(f.consumer, o.dedupKey)] : []),
      ]),
  );
  return f.writes.filter((w) => w.applied && !ackedRows.has(w.pk)).map((w) => w.pk);
}

// ── properties ──────────────────────────────────────────────────────────────────────────────────────

describe('order consumer handler under fuzzed events', () => {
  beforeAll(async () => {
    tables = await createTestTables();
  });

  it('answers for every record with exactly its own coordinates and never throws when records are malformed in any way', async () => {
    await fc.assert(
      fc.asyncProperty(validEnvelope, async (event) => {
        const f = fixture();
        const response = await f.invoke(event);

        const records = recordsOf(event);
        const outcomes = f.outcomes();
        expect(outcomes.map((o) => o.coordinates).sort()).toEqual(records.map((r) => r.coordinates).sort());
        expect(foreignIdentifiers(event, response)).toEqual([]);
        const reported = outcomes.filter((o) => isReported(o.status));
        expect(
          response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
        ).toEqual(reported.map((o) => o.coordinates));
        // Nothing here can be retried into success: every record is acked with a final outcome.
        expect(reported.map((o) => `${o.coordinates} ${o.status} ${o.reason}: ${o.detail}`)).toEqual([]);
        for (const outcome of outcomes.filter((o) => o.status === 'quarantined')) {
          expect(
            f.writes.some((w) => w.pk === quarantineRowKey(f.consumer, outcome.quarantineKey ?? '')),
          ).toBe(true);
        }
        expect(writesOfReportedRecords(f)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('writes nothing for a reported record when DynamoDB refuses some of the writes', async () => {
    await fc.assert(
      fc.asyncProperty(validEnvelope, fc.integer({ min: 0, max: 2 ** 30 }), async (event, salt) => {
        // The same rows are refused on every try: a refused record stays refused.
        const f = fixture((pk) => (hashOf(`${salt}:${pk}`) & 1) === 0);
        // A batch failed as a whole (an offset-less record to retry) is redelivered: its writes are duplicates then.
        const response = await responseUnlessUnreportable(f.invoke, event);
        if (!response) return;
        expect(responseProblems(event, response, f.outcomes())).toEqual(NO_RESPONSE_PROBLEMS);
        expect(writesOfReportedRecords(f)).toEqual([]);
      }),
      { numRuns: 120 },
    );
  }, 120_000);

  it('fails with one InvalidEventError naming the problem and writes nothing when the envelope is unusable', async () => {
    await fc.assert(
      fc.asyncProperty(badEnvelope, async (event) => {
        const f = fixture();
        const error = await rejectionOf(f.invoke(asDelivered(event)));

        expect(error).toBeInstanceOf(InvalidEventError);
        expect((error as Error).message).toMatch(/Kafka event|records/);
        expect(f.writes).toEqual([]);
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});
