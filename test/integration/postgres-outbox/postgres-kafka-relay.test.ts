/**
 * The Postgres relay's handler as its function runs it: settings read from the environment the construct
 * writes (POSTGRES_*, KAFKA_*, OUTBOX_*), its own connection pool, the real kafkajs publisher (plaintext, as
 * KAFKA_AUTH=none sets it) to the local Kafka broker (librdkafka's mock cluster, hosted by kcat), and
 * Debian's Postgres; a consumer of the topic reads each key in commit order with its event_id header. (The
 * mock cluster creates any topic it is sent to: poison events are the in-process broker's, in
 * postgres-relay-round.test.ts.)
 * Skipped, with one line, where kcat or Debian's Postgres is missing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../../lambdas/core/clock.js';
import { KafkaPublisher } from '../../../lambdas/outbox-relay/kafka-publisher.js';
import { createPostgresRelayHandler } from '../../../lambdas/postgres/outbox/relay-handler.js';
import { readPostgresRelayConfig } from '../../../lambdas/postgres/outbox/relay-settings.js';
import { POSTGRES_RELAY_ENTRY } from '../../../lib/bundling.js';
import { lambdaEnvironment } from '../../../local/demo/pipeline/pipeline-functions.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { buildBundles } from '../../../local/lambda-runtime/build-bundles.js';
import { WorkerFunction } from '../../../local/lambda-runtime/worker-function.js';
import { BROKER_SKIP_NOTICE, skipBrokerTests } from '../../support/broker.js';
import { lambdaContext } from '../../support/clocks.js';
import { readTopic } from '../../support/kcat-topic.js';
import { describeOnDebianPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';
import { emitCommitted, payment } from './outbox-harness.js';

if (skipBrokerTests) console.warn(BROKER_SKIP_NOTICE);

describeOnDebianPostgres('the Postgres relay’s handler through the local Kafka broker', (target) => {
  let cluster: KafkaMockCluster | undefined;
  let db: FreshSchema;
  const publishers: KafkaPublisher[] = [];
  beforeAll(async () => {
    if (!skipBrokerTests) cluster = await startKafkaMockCluster({ brokers: 3 });
  });
  afterAll(async () => {
    await Promise.allSettled(publishers.map((publisher) => publisher.disconnect()));
    await cluster?.stop();
  });
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
  });
  afterEach(() => db.drop());

  it.skipIf(skipBrokerTests)(
    'publishes each key in commit order with event_id headers, and empties the outbox',
    async () => {
      const broker = cluster as KafkaMockCluster;
      const topic = `relayed-${db.schema}`;
      const emit = (source: string, ...events: [string, string][]) =>
        emitCommitted(
          db,
          source,
          events.map(([key, value]) => ({
            ...payment(key, value),
            topic,
            headers: { type: 'payment-requested' },
          })),
          Date.now(),
        );
      await emit('order-1', ['customer-a', 'a1'], ['customer-b', 'b1']);
      await emit('order-2', ['customer-a', 'a2']);
      const config = readPostgresRelayConfig({
        POSTGRES_AUTH: 'url',
        POSTGRES_URL: target.url(),
        POSTGRES_SCHEMA: db.schema,
        KAFKA_BOOTSTRAP_SERVERS: broker.bootstrapServers,
        KAFKA_AUTH: 'none',
        OUTBOX_WAKE: 'notify',
        OUTBOX_POLL_INTERVAL_MS: '100',
      });
      const publisher = new KafkaPublisher({ brokers: config.brokers, auth: 'none' });
      publishers.push(publisher);
      const handler = createPostgresRelayHandler({ config, publisher });

      // Remaining time just past the round reserve: one round, then the end-of-invocation queries.
      const summary = await handler({ source: 'aws.events' }, lambdaContext(systemClock, 20_500));

      expect(summary).toMatchObject({ published: 3, quarantined: 0, publishFailures: 0, storeFailures: 0 });
      const records = await readTopic(broker.bootstrapServers, topic);
      const byKey = (key: string) =>
        records.filter((record) => record.key === key).map((record) => record.payload);
      expect(byKey('customer-a')).toEqual(['a1', 'a2']);
      expect(byKey('customer-b')).toEqual(['b1']);
      expect(records.every((record) => /^[0-9a-f-]{36}$/.test(record.headers.event_id ?? ''))).toBe(true);
      expect(records.every((record) => record.headers.type === 'payment-requested')).toBe(true);
      const left = await db.pool.query<{ pending: string; quarantined: string }>(
        `select (select count(*) from ${db.schema}.outbox) as pending,
                (select count(*) from ${db.schema}.outbox_quarantine) as quarantined`,
      );
      expect(left.rows[0]).toEqual({ pending: '0', quarantined: '0' });
    },
  );

  it.skipIf(skipBrokerTests)(
    'the bundle its construct deploys, in the local Lambda runtime, publishes what commits while it runs',
    async () => {
      const broker = cluster as KafkaMockCluster;
      const topic = `bundled-${db.schema}`;
      const directory = await mkdtemp(join(tmpdir(), 'postgres-relay-'));
      const fn = new WorkerFunction({
        ...(await buildBundles(directory, { entry: POSTGRES_RELAY_ENTRY, name: 'postgres-outbox-relay' })),
        functionName: 'postgres-outbox-relay',
        // The relay reads no DynamoDB: nothing answers here.
        dynamoDbEndpoint: 'http://127.0.0.1:9',
        environment: {
          ...lambdaEnvironment('postgres-outbox-relay', 'WARN'),
          POSTGRES_AUTH: 'url',
          POSTGRES_URL: target.url(),
          POSTGRES_SCHEMA: db.schema,
          KAFKA_BOOTSTRAP_SERVERS: broker.bootstrapServers,
          KAFKA_AUTH: 'none',
          OUTBOX_POLL_INTERVAL_MS: '100',
        },
      });
      try {
        await emitCommitted(db, 'order-1', [{ topic, key: 'customer-a', value: 'a1' }], Date.now());
        // As the schedule invokes it: an EventBridge event, and 22 s before the timeout (2 s of rounds).
        const invoked = fn.invoke({
          event: { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} },
          requestId: 'scheduled-1',
          deadlineMs: Date.now() + 22_000,
        });
        await new Promise((resolve) => setTimeout(resolve, 700));
        await emitCommitted(db, 'order-2', [{ topic, key: 'customer-a', value: 'a2' }], Date.now());

        const outcome = await invoked;

        expect(outcome).toMatchObject({ kind: 'returned', response: { published: 2, storeFailures: 0 } });
        const records = await readTopic(broker.bootstrapServers, topic);
        expect(records.map((record) => record.payload)).toEqual(['a1', 'a2']);
      } finally {
        await fn.close();
        await rm(directory, { recursive: true, force: true });
      }
    },
  );

  it('refuses to start without its settings, naming each', () => {
    expect(() => readPostgresRelayConfig({ OUTBOX_WAKE: 'sometimes', OUTBOX_POLL_INTERVAL_MS: '5' })).toThrow(
      /POSTGRES_HOST.*KAFKA_BOOTSTRAP_SERVERS.*OUTBOX_WAKE "sometimes".*OUTBOX_POLL_INTERVAL_MS "5"/,
    );
  });
});
