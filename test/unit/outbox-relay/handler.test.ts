/**
 * The relay's entry (lambdas/outbox-relay/handler.ts) where no request is made: settings missing from the
 * environment, and an invocation no partial response can answer.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConfigError, UnreportableRecordError } from '../../../lambdas/core/errors.js';
import { createRelayHandler, handler } from '../../../lambdas/outbox-relay/handler.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { FakePublisher } from '../../support/fake-publisher.js';

describe('the relay handler', () => {
  it('fails every invocation with one ConfigError naming the missing settings', async () => {
    const invoke = () => handler({ Records: [] }, lambdaContext(new ManualClock()));

    await expect(invoke()).rejects.toBeInstanceOf(ConfigError);
    await expect(invoke()).rejects.toThrow(
      'Invalid configuration: OUTBOX_TABLE_NAME is required; KAFKA_BOOTSTRAP_SERVERS is required (host:port,host:port); AWS_REGION is required with KAFKA_AUTH=iam (Lambda sets it)',
    );
  });

  it('fails the whole invocation for a record without a sequence number, having sent nothing', async () => {
    const publisher = new FakePublisher();
    const relay = createRelayHandler({
      config: {
        outboxTableName: 'outbox',
        brokers: ['127.0.0.1:9092'],
        kafkaAuth: 'none',
        region: undefined,
        functionName: undefined,
      },
      publisher,
      // Never called: the record is refused before any request.
      dynamoDb: new DynamoDBClient({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:1' }),
    });

    await expect(
      relay({ Records: [{ eventName: 'INSERT', dynamodb: {} }] }, lambdaContext(new ManualClock())),
    ).rejects.toBeInstanceOf(UnreportableRecordError);
    expect(publisher.calls).toEqual([]);
  });
});
