/**
 * The front door with the Redis store: `createInboxConsumer({ store: redisInbox({ settings: { url } }) })`
 * with a `call` effect and no INBOX_TABLE_NAME, a Kafka batch end to end against Debian's redis-server, the
 * client made from the settings; and the settings' one-line refusals.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { expect, it } from 'vitest';
import { createObservedInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import type { RecordOutcome } from '../../../lambdas/core/index.js';
import { redisInbox } from '../../../lambdas/redis/index.js';
import { readRedisSettings } from '../../../lambdas/redis/redis-settings.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { describeOnRedis } from '../../support/redis.js';

describeOnRedis('createInboxConsumer with redisInbox', (server) => {
  it('calls each event’s effect once across a redelivery to a fresh container, with no inbox table', async () => {
    const clock = new ManualClock();
    const calls: string[] = [];
    // One consumer, two containers: the second must find the first's rows.
    const consumerName = `orders-${Date.now()}`;
    const container = () => {
      let outcomes: readonly RecordOutcome[] = [];
      const handler = createObservedInboxConsumer(
        {
          store: redisInbox({ settings: { url: server().url } }),
          effect: ({ dedupKey }) => ({ kind: 'call', run: async () => void calls.push(dedupKey) }),
          settings: { consumerName },
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
        invoke: (event: unknown) => handler(event, lambdaContext(clock)),
        statuses: () => outcomes.map((outcome) => outcome.status),
      };
    };
    const batch = kafkaEvent([orderRecord(1, { eventId: 'e1' }), orderRecord(2, { eventId: 'e2' })]);
    const first = container();
    const second = container();

    expect(await first.invoke(batch)).toEqual({ batchItemFailures: [] });
    expect(await second.invoke(batch)).toEqual({ batchItemFailures: [] });

    expect(calls).toEqual(['e1', 'e2']);
    expect(first.statuses()).toEqual(['processed', 'processed']);
    expect(second.statuses()).toEqual(['duplicate', 'duplicate']);
  });
});

it('refuses settings without a server, or with a bad one, naming each', () => {
  expect(() => readRedisSettings({}, {})).toThrow(/REDIS_HOST \(or REDIS_URL\) is required/);
  expect(() =>
    readRedisSettings({}, { REDIS_URL: 'http://cache', REDIS_TLS: 'yes', REDIS_PORT: '0' }),
  ).toThrow(/REDIS_URL "http:\/\/cache" must be redis:\/\/.*REDIS_PORT "0".*REDIS_TLS "yes"/);
});
