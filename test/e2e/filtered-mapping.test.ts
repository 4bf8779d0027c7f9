import { describe, it } from 'vitest';
import { EventSourceMapping } from '../../local/esm/event-source-mapping.js';
import { InMemoryLog } from '../../local/esm/in-memory-log.js';
import { InMemoryDestination } from '../../local/esm/on-failure-destination.js';
import { createTestTables } from '../support/dynamodb.js';
import { expectFilteredRun, filteredOrderRecords, LARGE_ORDERS } from './fixtures/filtered-orders.js';
import { CONSUMER_NAME, orderConsumerFunction } from './kafka/fixtures/order-consumer-function.js';

// Powertools Metrics writes EMF to stdout on every invocation; the counts are not what this test reads.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

describe('the ESM emulator with filters, the order consumer and DynamoDB Local', () => {
  it('applies only the records the filters let through, commits the filtered ones, and quarantines a value that is not JSON', async () => {
    const tables = await createTestTables();
    const log = new InMemoryLog({ topics: { orders: 1 } });
    await log.produce(filteredOrderRecords('orders'));
    const source = log.consumer('order-consumer');
    const mapping = new EventSourceMapping({
      source,
      function: orderConsumerFunction({ dynamoDb: tables.client, ...tables }),
      destination: new InMemoryDestination(),
      settings: { batchSize: 2, batchingWindowMs: 0, functionName: CONSUMER_NAME, filters: LARGE_ORDERS },
    });
    await mapping.start();
    try {
      await mapping.waitUntilCaughtUp(20_000);
      await expectFilteredRun(tables, mapping.stats, await source.progress());
    } finally {
      await mapping.stop();
    }
  });
});
