import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { readOrderConsumerConfig } from '../../support/config.js';

const valid = { INBOX_TABLE_NAME: 'inbox', APP_TABLE_NAME: 'app', CONSUMER_NAME: 'orders' };

describe('readInboxConfig', () => {
  it('applies the documented defaults when only the required variables are set', () => {
    expect(readOrderConsumerConfig(valid)).toEqual({
      inboxTableName: 'inbox',
      appTableName: 'app',
      consumerName: 'orders',
      dedupTtlSeconds: 604_800,
      dedupKeyPolicy: { header: 'event_id', field: 'event_id', fallback: 'none' },
      deadlineMarginMs: 3_000,
      leaseMarginMs: 10_000,
      partitionConcurrency: 8,
      ordering: { by: 'partition' },
      completedKeyCacheSize: 10_000,
      transactGroupMaxRecords: 100,
    });
  });

  it('reads every optional setting when it is given', () => {
    const config = readOrderConsumerConfig({
      ...valid,
      DEDUP_TTL_SECONDS: '86400',
      DEDUP_HEADER: 'x-event-id',
      DEDUP_FIELD: 'id',
      DEDUP_KEY_FALLBACK: 'coordinates',
      DEADLINE_MARGIN_MS: '1500',
      LEASE_MARGIN_MS: '0',
      PARTITION_CONCURRENCY: '2',
    });

    expect(config).toMatchObject({
      dedupTtlSeconds: 86_400,
      dedupKeyPolicy: { header: 'x-event-id', field: 'id', fallback: 'coordinates' },
      deadlineMarginMs: 1_500,
      leaseMarginMs: 0,
      partitionConcurrency: 2,
    });
  });

  it('names every problem in one error when several variables are wrong', () => {
    let error: unknown;
    try {
      readOrderConsumerConfig({
        CONSUMER_NAME: 'bad#name',
        DEDUP_TTL_SECONDS: '7 days',
        DEDUP_KEY_FALLBACK: 'offset',
      });
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'INBOX_TABLE_NAME is required',
      'CONSUMER_NAME "bad#name" must be 1-64 letters, digits, dots, dashes or underscores',
      'DEDUP_TTL_SECONDS "7 days" must be a whole number from 60 to 31536000',
      'DEDUP_KEY_FALLBACK "offset" must be one of: none, coordinates',
      'APP_TABLE_NAME is required',
    ]);
    expect((error as Error).message).toMatch(/^Invalid configuration: INBOX_TABLE_NAME is required; /);
  });
});
