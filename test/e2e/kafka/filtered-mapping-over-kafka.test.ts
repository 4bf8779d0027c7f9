import { afterAll, beforeAll, describe, it } from 'vitest';
import { EventSourceMapping } from '../../../local/esm/event-source-mapping.js';
import { InMemoryDestination } from '../../../local/esm/on-failure-destination.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { createKafkaClient } from '../../../local/kafka/kafka-client.js';
import { KafkaRecordSink } from '../../../local/kafka/kafka-record-sink.js';
import { KafkaRecordSource } from '../../../local/kafka/kafka-record-source.js';
import { skipBrokerTests } from '../../support/broker.js';
import { createTestTables } from '../../support/dynamodb.js';
import { expectFilteredRun, filteredOrderRecords, LARGE_ORDERS } from '../fixtures/filtered-orders.js';
import { CONSUMER_NAME, orderConsumerFunction } from './fixtures/order-consumer-function.js';

// Powertools Metrics writes EMF to stdout on every invocation; the counts are not what this test reads.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

let cluster: KafkaMockCluster;

beforeAll(async () => {
  if (skipBrokerTests) return;
  cluster = await startKafkaMockCluster({ brokers: 1 });
});

afterAll(async () => {
  await cluster?.stop();
});

describe.skipIf(skipBrokerTests)('the ESM emulator with filters over the Kafka broker', () => {
  it('delivers only matching records through a consumer group and commits the filtered ones on the broker', async () => {
    const tables = await createTestTables();
    const kafka = createKafkaClient({ brokers: cluster.brokers });
    const sink = new KafkaRecordSink(kafka);
    try {
      await sink.produce(filteredOrderRecords('filtered-orders'));
    } finally {
      await sink.close();
    }
    const source = new KafkaRecordSource(createKafkaClient({ brokers: cluster.brokers }), {
      topics: ['filtered-orders'],
      groupId: 'filtered-orders-group',
      brokers: cluster.brokers,
    });
    const mapping = new EventSourceMapping({
      source,
      function: orderConsumerFunction({ dynamoDb: tables.client, ...tables }),
      destination: new InMemoryDestination(),
      settings: { batchSize: 2, batchingWindowMs: 20, functionName: CONSUMER_NAME, filters: LARGE_ORDERS },
    });
    await mapping.start();
    try {
      await mapping.waitUntilCaughtUp(30_000);
      const progress = (await source.progress()).filter((partition) => partition.topic === 'filtered-orders');
      await expectFilteredRun(tables, mapping.stats, progress);
    } finally {
      await mapping.stop();
    }
  });
});
