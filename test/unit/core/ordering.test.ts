import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import { dynamoDbClientConfig, maxRecordsInFlight } from '../../../lambdas/core/dynamodb-client-config.js';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { orderingKeyOf, parseKeySource } from '../../../lambdas/core/ordering.js';
import { readOrderConsumerConfig } from '../../support/config.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';

const required = { INBOX_TABLE_NAME: 'inbox', APP_TABLE_NAME: 'app', CONSUMER_NAME: 'orders' };

const decoded = (spec: RecordSpec) => {
  const record = decodeEvent(kafkaEvent([spec]))[0]?.records[0];
  if (!record) throw new Error('no record');
  return record;
};

describe('parseKeySource', () => {
  it('reads kafka-key and field:<name>, and nothing else', () => {
    expect(parseKeySource('kafka-key')).toEqual({ from: 'kafka-key' });
    expect(parseKeySource('field:account_id')).toEqual({ from: 'field', field: 'account_id' });
    expect(parseKeySource('field:')).toBeUndefined();
    expect(parseKeySource('key')).toBeUndefined();
  });
});

describe('orderingKeyOf', () => {
  it('takes the Kafka key as delivered, and no key when it is null', () => {
    expect(orderingKeyOf(decoded({ offset: 1, key: 'acct-1' }), { from: 'kafka-key' })).toBe(
      Buffer.from('acct-1').toString('base64'),
    );
    expect(orderingKeyOf(decoded({ offset: 1, key: null }), { from: 'kafka-key' })).toBeUndefined();
  });

  it('takes a string or number field of the JSON value, and no key otherwise', () => {
    const source = { from: 'field', field: 'account' } as const;
    expect(orderingKeyOf(decoded({ offset: 1, value: { account: 'a-1' } }), source)).toBe('a-1');
    expect(orderingKeyOf(decoded({ offset: 1, value: { account: 42 } }), source)).toBe('42');
    expect(orderingKeyOf(decoded({ offset: 1, value: { account: { id: 1 } } }), source)).toBeUndefined();
    expect(orderingKeyOf(decoded({ offset: 1, value: 'not json' }), source)).toBeUndefined();
  });
});

describe('ordering and cache variables', () => {
  it('defaults to partition ordering and a 10,000-key cache', () => {
    const config = readOrderConsumerConfig(required);

    expect(config.ordering).toEqual({ by: 'partition' });
    expect(config.completedKeyCacheSize).toBe(10_000);
    expect(maxRecordsInFlight(config)).toBe(8);
  });

  it('reads ORDERING=key with its key source and concurrency', () => {
    const config = readOrderConsumerConfig({
      ...required,
      ORDERING: 'key',
      KEY_SOURCE: 'field:account_id',
      KEY_CONCURRENCY: '32',
      PARTITION_CONCURRENCY: '4',
      COMPLETED_KEY_CACHE_SIZE: '0',
    });

    expect(config.ordering).toEqual({
      by: 'key',
      keySource: { from: 'field', field: 'account_id' },
      keyConcurrency: 32,
    });
    expect(config.completedKeyCacheSize).toBe(0);
    expect(maxRecordsInFlight(config)).toBe(128);
  });

  it('orders by the Kafka key with 16 keys in flight when only ORDERING=key is set', () => {
    expect(readOrderConsumerConfig({ ...required, ORDERING: 'key' }).ordering).toEqual({
      by: 'key',
      keySource: { from: 'kafka-key' },
      keyConcurrency: 16,
    });
  });

  it('names every wrong ordering or cache variable in one error', () => {
    const problems = (env: Record<string, string>) => {
      try {
        readOrderConsumerConfig({ ...required, ...env });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };

    expect(problems({ ORDERING: 'offset', COMPLETED_KEY_CACHE_SIZE: '-1' })).toEqual([
      'ORDERING "offset" must be one of: partition, key',
      'COMPLETED_KEY_CACHE_SIZE "-1" must be a whole number from 0 to 1000000',
    ]);
    expect(problems({ ORDERING: 'key', KEY_SOURCE: 'header:x', KEY_CONCURRENCY: '0' })).toEqual([
      'KEY_SOURCE "header:x" must be kafka-key or field:<name>',
      'KEY_CONCURRENCY "0" must be a whole number from 1 to 1000',
    ]);
    expect(problems({ KEY_SOURCE: 'kafka-key' })).toEqual([
      'KEY_SOURCE and KEY_CONCURRENCY apply only when ORDERING is key',
    ]);
    expect(() => readOrderConsumerConfig({ ...required, KEY_CONCURRENCY: '4' })).toThrow(ConfigError);
  });
});

describe('dynamoDbClientConfig', () => {
  const sockets = (env: Record<string, string>) => {
    const { requestHandler } = dynamoDbClientConfig(readOrderConsumerConfig({ ...required, ...env }));
    return (requestHandler as { httpsAgent: { keepAlive: boolean; maxSockets: number } }).httpsAgent;
  };

  it("keeps connections alive with at least the SDK's 50 sockets", () => {
    expect(sockets({})).toEqual({ keepAlive: true, maxSockets: 50 });
  });

  it('gives every record in flight a socket when ORDERING=key needs more', () => {
    expect(sockets({ ORDERING: 'key', KEY_CONCURRENCY: '32', PARTITION_CONCURRENCY: '4' })).toEqual({
      keepAlive: true,
      maxSockets: 128,
    });
  });
});
