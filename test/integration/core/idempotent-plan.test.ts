/**
 * An `idempotent` plan end to end, against DynamoDB Local: batches through createInboxConsumer, every
 * request counted on the wire. Its writes go alone (no inbox row), a redelivery or a stale event is
 * answered by the write's own guard, and a plan that accumulates is quarantined before any write.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import type { BatchSummary } from '../../../lambdas/core/batch-summary.js';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import { INBOX_STATUS } from '../../../lambdas/core/inbox-rows.js';
import type { EffectPlan, RecordOutcome } from '../../../lambdas/core/index.js';
import { localDynamoDbClient } from '../../../local/dynamodb-local/client.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});

const OrderShipped = z.object({
  order_id: z.string().min(1),
  version: z.number().int().positive(),
  status: z.string(),
  adjust: z.boolean().optional(),
});
type OrderShipped = z.infer<typeof OrderShipped>;

/** The order item at the event's version: written only when newer than the stored one. */
function orderVersionPlan(appTable: string, event: OrderShipped): EffectPlan {
  return {
    kind: 'idempotent',
    writes: [
      {
        Update: {
          TableName: appTable,
          Key: { pk: `order#${event.order_id}` },
          UpdateExpression: event.adjust
            ? 'SET #v = :v ADD adjustments :one'
            : 'SET #v = :v, #status = :status',
          ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
          ExpressionAttributeNames: { '#v': 'version', ...(event.adjust ? {} : { '#status': 'status' }) },
          ExpressionAttributeValues: {
            ':v': event.version,
            ...(event.adjust ? { ':one': 1 } : { ':status': event.status }),
          },
        },
      },
    ],
  };
}

function consumer(name: string, effect: (event: OrderShipped) => EffectPlan) {
  // A client of the test's own, so its requests (and only its) are counted.
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
  const requests: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  let outcomes: readonly RecordOutcome[] = [];
  let summary: BatchSummary | undefined;
  const clock = new ManualClock();
  const handler = createObservedInboxConsumer(
    {
      schema: OrderShipped,
      effect: ({ event }) => effect(event),
      settings: { inboxTableName: tables.inboxTableName, consumerName: name },
      dynamoDb: client,
      logger: new Logger({ logLevel: 'SILENT' }),
    },
    {
      clock,
      observe: {
        batchProcessed: (batchSummary, batch) => {
          summary = batchSummary;
          outcomes = batch;
        },
      },
    },
  );
  return {
    /** The batch's outcomes and the requests it made. */
    async deliver(records: RecordSpec[]) {
      requests.length = 0;
      const response = await handler(kafkaEvent(records), lambdaContext(clock, 60_000));
      return {
        failures: response.batchItemFailures,
        outcomes: outcomes.map((o) => `${o.offset} ${o.status}${o.reason ? ` ${o.reason}` : ''}`),
        details: outcomes.map((o) => o.detail),
        duplicates: summary?.counts.duplicate,
        requests: [...requests],
      };
    },
  };
}

function shipped(offset: number, eventId: string, order: string, version: number, extra = {}): RecordSpec {
  return {
    offset,
    headers: { event_id: eventId },
    value: { order_id: order, version, status: `v${version}`, ...extra },
  };
}

/** The inbox table's rows of a consumer, as `status pk-suffix`. */
async function inboxRows(consumerName: string): Promise<string[]> {
  const rows = await tables.scan(tables.inboxTableName);
  return rows
    .filter((row) => String(row.pk).startsWith(`${consumerName}`))
    .map((row) => `${String(row.status)} ${String(row.pk).slice(consumerName.length)}`);
}

describe('an idempotent plan', () => {
  it('applies a new record in exactly one request, and writes no inbox row', async () => {
    const orders = consumer('idem-new', (event) => orderVersionPlan(tables.appTableName, event));

    const first = await orders.deliver([shipped(1, 'e-1', 'o-new', 1), shipped(2, 'e-2', 'o-new-b', 1)]);

    expect(first.failures).toEqual([]);
    expect(first.outcomes).toEqual(['1 processed', '2 processed']);
    expect(first.requests).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect(await tables.get(tables.appTableName, 'order#o-new')).toMatchObject({ version: 1, status: 'v1' });
    expect(await inboxRows('idem-new')).toEqual([]);
  });

  it('acks a redelivery whose guard fails as a counted duplicate, never retried', async () => {
    const orders = consumer('idem-redelivery', (event) => orderVersionPlan(tables.appTableName, event));
    const batch = [shipped(1, 'r-1', 'o-redelivered', 1), shipped(2, 'r-2', 'o-redelivered', 2)];
    await orders.deliver(batch);

    const again = await orders.deliver(batch);

    expect(again.failures).toEqual([]);
    expect(again.outcomes).toEqual(['1 duplicate guard-failed', '2 duplicate guard-failed']);
    expect(again.duplicates).toBe(2);
    // One request each, none repeated: a failed guard is an answer, not a fault.
    expect(again.requests).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect(again.details[0]).toContain("write 0's condition failed (applied before, or a newer event is)");
    expect(await tables.get(tables.appTableName, 'order#o-redelivered')).toMatchObject({ version: 2 });
  });

  it('acks a stale event (a lower version) without writing it', async () => {
    const orders = consumer('idem-stale', (event) => orderVersionPlan(tables.appTableName, event));
    await orders.deliver([shipped(1, 's-3', 'o-stale', 3)]);

    const stale = await orders.deliver([shipped(2, 's-2', 'o-stale', 2)]);

    expect(stale.failures).toEqual([]);
    expect(stale.outcomes).toEqual(['2 duplicate guard-failed']);
    expect(await tables.get(tables.appTableName, 'order#o-stale')).toMatchObject({
      version: 3,
      status: 'v3',
    });
  });

  it('settles a copy of a key in the same batch against its first copy, with no second request', async () => {
    const orders = consumer('idem-in-batch', (event) => orderVersionPlan(tables.appTableName, event));

    const batch = await orders.deliver([
      shipped(1, 'b-1', 'o-in-batch', 1),
      shipped(2, 'b-1', 'o-in-batch', 1),
    ]);

    expect(batch.outcomes).toEqual(['1 processed', '2 duplicate in-batch']);
    expect(batch.requests).toEqual(['UpdateItemCommand']);
  });

  it('quarantines a plan that accumulates, naming the write and the fix, before any write', async () => {
    const orders = consumer('idem-refused', (event) => orderVersionPlan(tables.appTableName, event));

    const refused = await orders.deliver([shipped(1, 'q-1', 'o-refused', 1, { adjust: true })]);

    expect(refused.failures).toEqual([]);
    expect(refused.outcomes).toEqual(['1 quarantined effect-not-idempotent']);
    expect(refused.details[0]).toMatch(
      /^write 0 \(Update on app-[^)]+\): `ADD` adds again .*`transact` plan/,
    );
    // Only the quarantine row: no write, no inbox row.
    expect(refused.requests).toEqual(['PutItemCommand']);
    expect(await tables.get(tables.appTableName, 'order#o-refused')).toBeUndefined();
    expect(await inboxRows('idem-refused')).toEqual([expect.stringMatching(/^QUARANTINED /)]);
  });

  it('sends several writes as one TransactWriteItems, and a failed guard among them as a duplicate', async () => {
    const orders = consumer('idem-several', (event) => {
      const order = orderVersionPlan(tables.appTableName, event);
      if (order.kind !== 'idempotent') throw new Error('an idempotent plan');
      // A receipt the event owns (keyed by its id) beside the guarded order update.
      const receipt = { Put: { TableName: tables.appTableName, Item: { pk: `receipt#m-${event.version}` } } };
      return { kind: 'idempotent', writes: [...order.writes, receipt] };
    });
    const batch = [shipped(1, 'm-1', 'o-several', 1)];

    const first = await orders.deliver(batch);
    const again = await orders.deliver(batch);

    expect(first.outcomes).toEqual(['1 processed']);
    expect(first.requests).toEqual(['TransactWriteItemsCommand']);
    expect(await tables.get(tables.appTableName, 'receipt#m-1')).toBeDefined();
    expect(again.outcomes).toEqual(['1 duplicate guard-failed']);
    expect(again.requests).toEqual(['TransactWriteItemsCommand']);
    expect(await inboxRows('idem-several')).not.toContainEqual(expect.stringMatching(INBOX_STATUS.completed));
  });
});
