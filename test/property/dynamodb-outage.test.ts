/**
 * DynamoDB unreachable, as a property over random batches of the order consumer (createInboxConsumer, deployed
 * retry settings): for a whole batch (a real refused connection), and from a random write on (injected
 * inside the SDK's retry loop, since a real server cannot be stopped mid-request).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dedupRowKey, quarantineRowKey } from '../../lambdas/core/inbox-rows.js';
import { localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { freePort } from '../../local/dynamodb-local/server.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { kafkaEvent, orderRecord, type RecordSpec } from '../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../support/order-consumer.js';
import { unreachableError } from '../support/sdk-faults.js';

let cases = 0;

/** A batch whose every record needs a write: new orders (some sent twice) and records to quarantine. */
const batchSpec = fc.record({
  partitions: fc.integer({ min: 1, max: 4 }),
  records: fc.array(
    fc.record({
      partition: fc.nat(3),
      kind: fc.constantFrom('order', 'order', 'order', 'copy', 'no-event-id', 'not-json'),
      amount: fc.integer({ min: 1, max: 999 }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
});

function buildBatch({ partitions, records }: typeof batchSpec extends fc.Arbitrary<infer T> ? T : never) {
  // Its own topic too, so its quarantine rows (keyed by coordinates) are its own.
  const prefix = `outage-${cases++}`;
  const offsets = new Map<number, number>();
  const amounts: number[] = [];
  const specs: RecordSpec[] = records.map(({ partition: p, kind, amount }) => {
    const partition = p % partitions;
    const offset = offsets.get(partition) ?? 100;
    offsets.set(partition, offset + 1);
    const at = { topic: prefix, partition, offset };
    if (kind === 'no-event-id') return { ...at, value: { type: 'OrderPlaced', amount } };
    if (kind === 'not-json') return { ...at, value: '{ not json', headers: { event_id: `${prefix}-bad` } };
    // A producer retry: the same event again, later in the batch.
    const id = kind === 'copy' && amounts.length > 0 ? amounts.length - 1 : amounts.push(amount) - 1;
    const order = { eventId: `${prefix}-e${id}`, orderId: `${prefix}-o${id}`, accountId: `${prefix}-a` };
    return orderRecord(offset, { ...order, amount: amounts[id] ?? amount }, partition, prefix);
  });
  return { prefix, event: kafkaEvent(specs), count: specs.length };
}

describe('order consumer when DynamoDB is unreachable', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await createTestTables();
  });

  async function rowsOf(prefix: string) {
    const [inbox, app] = await Promise.all([
      tables.scan(tables.inboxTableName),
      tables.scan(tables.appTableName),
    ]);
    return [...inbox, ...app].filter((row) => String(row.pk).includes(prefix));
  }

  it('reports every record, acks none and leaves no row when DynamoDB is unreachable for the whole batch', async () => {
    // Nothing listens there: every request is refused, and the SDK retries as deployed (3 attempts).
    const unreachable = localDynamoDbClient(`http://127.0.0.1:${await freePort()}`, 3);
    await fc.assert(
      fc.asyncProperty(batchSpec, async (spec) => {
        const { prefix, event, count } = buildBatch(spec);
        const consumer = orderConsumer(tables, { dynamoDb: unreachable });

        const response = await consumer.invoke(event);

        expect(response.batchItemFailures).toHaveLength(count);
        expect(
          consumer
            .lastOutcomes()
            .filter((o) => o.status !== 'failed' && o.status !== 'blocked' && o.status !== 'in-flight'),
        ).toEqual([]);
        expect(await rowsOf(prefix)).toEqual([]);
      }),
      { numRuns: 10 },
    );
  }, 60_000);

  it('acks exactly the records whose writes landed, each all or nothing, when DynamoDB goes down mid-batch', async () => {
    await fc.assert(
      fc.asyncProperty(batchSpec, fc.nat(8), async (spec, upFor) => {
        const { prefix, event } = buildBatch(spec);
        const consumer = orderConsumer(tables, { dynamoDb: failingFrom(upFor) });

        const response = await consumer.invoke(event);

        const rows = new Map((await rowsOf(prefix)).map((row) => [String(row.pk), row]));
        const reported = new Set(
          response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
        );
        // Events a record that was acked applied (processed, or found done): their rows may be another copy's.
        const ackedEvents = new Set(
          consumer
            .lastOutcomes()
            .filter(
              (o) => !reported.has(o.coordinates) && (o.status === 'processed' || o.status === 'duplicate'),
            )
            .map((o) => o.dedupKey),
        );
        for (const outcome of consumer.lastOutcomes()) {
          const wrote =
            outcome.status === 'quarantined'
              ? rows.has(quarantineRowKey(CONSUMER, outcome.coordinates))
              : outcome.dedupKey !== undefined && rows.has(dedupRowKey(CONSUMER, outcome.dedupKey));
          if (reported.has(outcome.coordinates)) {
            // Nothing of a reported record is visible, unless an acked copy of the same event wrote it (a
            // copy settled as a duplicate of it before a record ahead of it in its partition was reported).
            const anotherCopyWrote = outcome.status === 'in-flight' || ackedEvents.has(outcome.dedupKey);
            if (!anotherCopyWrote) expect(wrote, outcome.coordinates).toBe(false);
          } else {
            expect(['processed', 'duplicate', 'quarantined']).toContain(outcome.status);
            expect(wrote, outcome.coordinates).toBe(true);
          }
        }
        // The inbox row and the order's writes commit together or not at all.
        for (const [pk] of rows) {
          const id = /#(outage-\d+-e\d+)$/.exec(pk)?.[1];
          if (id) expect(rows.has(`order#${id.replace('-e', '-o')}`), pk).toBe(true);
          const order = /^order#(outage-\d+-o\d+)$/.exec(pk)?.[1];
          if (order) expect(rows.has(dedupRowKey(CONSUMER, order.replace('-o', '-e'))), pk).toBe(true);
        }
      }),
      { numRuns: 20 },
    );
  }, 90_000);
});

/** DynamoDB Local answers the first `upFor` requests, then every request fails as during an outage. */
function failingFrom(upFor: number): DynamoDBClient {
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'), 3);
  let requests = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      if (requests++ < upFor) return next(args);
      throw unreachableError();
    },
    { step: 'deserialize', name: 'outageFromNowOn', priority: 'low' },
  );
  return client;
}
