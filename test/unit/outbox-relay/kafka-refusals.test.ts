/**
 * Which kafkajs errors quarantine an event (lambdas/outbox-relay/kafka-refusals.ts). The errors are made
 * by kafkajs's own code: a broker error code turned into its protocol error, passed through its retrier
 * (which wraps a retriable one after the retries, a non-retriable one at once), so a change in how
 * kafkajs nests them shows here.
 */
import { createRequire } from 'node:module';
import {
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSRequestTimeoutError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { classifyKafkaError } from '../../../lambdas/outbox-relay/kafka-refusals.js';

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error') as {
  createErrorFromCode(code: number): Error & { type: string; retriable: boolean };
};
type Retrier = (fn: () => Promise<never>) => Promise<never>;
const createRetrier = require('kafkajs/src/retry') as (options: object) => Retrier;

/** What producer.send rejects with when every attempt answers the broker error `type`. */
async function afterRetries(type: keyof typeof CODES): Promise<unknown> {
  const brokerError = createErrorFromCode(CODES[type]);
  // The table below is kafkajs's: a code that named another type would test nothing.
  expect(brokerError.type).toBe(type);
  const retrier = createRetrier({ retries: 1, initialRetryTime: 1, maxRetryTime: 2 });
  return retrier(() => Promise.reject(brokerError)).catch((error: unknown) => error);
}

const CODES = {
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_FOR_PARTITION: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  TOPIC_AUTHORIZATION_FAILED: 29,
  SASL_AUTHENTICATION_FAILED: 58,
  INVALID_RECORD: 87,
} as const;

describe('classifyKafkaError', () => {
  it.each([
    ['MESSAGE_TOO_LARGE', 'message-too-large'],
    ['RECORD_LIST_TOO_LARGE', 'record-list-too-large'],
    ['INVALID_RECORD', 'invalid-record'],
    ['UNKNOWN_TOPIC_OR_PARTITION', 'unknown-topic'],
    ['INVALID_TOPIC_EXCEPTION', 'invalid-topic'],
  ] as const)('%s, as the producer throws it after its retrier, is poison (%s)', async (type, reason) => {
    const error = await afterRetries(type);
    expect(error).toBeInstanceOf(KafkaJSNonRetriableError);

    expect(classifyKafkaError(error)).toEqual({ kind: 'poison', reason, type });
  });

  it.each([
    'LEADER_NOT_AVAILABLE',
    'NOT_LEADER_FOR_PARTITION',
    'REQUEST_TIMED_OUT',
    'NOT_ENOUGH_REPLICAS',
    'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
    'TOPIC_AUTHORIZATION_FAILED',
    'SASL_AUTHENTICATION_FAILED',
  ] as const)('%s is transient: time or an operator fixes it', async (type) => {
    expect(classifyKafkaError(await afterRetries(type))).toEqual({ kind: 'transient' });
  });

  it('reads the type on the protocol error itself and after retries were exceeded', () => {
    const tooLarge = createErrorFromCode(CODES.MESSAGE_TOO_LARGE);
    expect(classifyKafkaError(tooLarge)).toMatchObject({ reason: 'message-too-large' });
    const exceeded = new KafkaJSNumberOfRetriesExceeded(
      createErrorFromCode(CODES.UNKNOWN_TOPIC_OR_PARTITION),
      {
        retryCount: 5,
        retryTime: 100,
      },
    );
    expect(classifyKafkaError(exceeded)).toMatchObject({ reason: 'unknown-topic' });
  });

  it('takes a broker down, a timeout, kafkajs errors without a type and anything else as transient', () => {
    for (const error of [
      new KafkaJSConnectionError('Connection error: ECONNREFUSED', { broker: '127.0.0.1:1' }),
      new KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out'),
      new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), {
        retryCount: 5,
        retryTime: 100,
      }),
      new KafkaJSError('The producer is disconnected'),
      new Error('MESSAGE_TOO_LARGE in a message is no type'),
      undefined,
      'text',
    ]) {
      expect(classifyKafkaError(error)).toEqual({ kind: 'transient' });
    }
  });

  it('stops on a cause that refers to itself', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(classifyKafkaError(error)).toEqual({ kind: 'transient' });
  });
});
