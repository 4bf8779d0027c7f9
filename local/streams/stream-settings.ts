/**
 * The DynamoDB stream event source mapping settings the emulator honours, with Lambda's defaults and limits
 * for DynamoDB Streams (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html). Left out:
 * ParallelizationFactor (each shard is read by one loop, one batch at a time: factor 1, the default) and
 * TumblingWindowInSeconds; the relay needs neither.
 */
import { EsmSettingsError, isIntegerIn } from '../esm/esm-settings.js';
import { type StreamRecordFilter, streamFilterProblems } from './stream-filter.js';

export interface StreamMappingSettings {
  /** BatchSize. @default 100 (at most 10,000) */
  readonly batchSize?: number;
  /** MaximumBatchingWindowInSeconds, in ms. @default 0: a batch goes out as soon as records are read */
  readonly batchingWindowMs?: number;
  /** StartingPosition. @default 'TRIM_HORIZON' */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** FilterCriteria: patterns on the whole stream record; a record matching none is dropped. @default none */
  readonly filters?: readonly StreamRecordFilter[];
  /** FunctionResponseTypes ['ReportBatchItemFailures']: honour `batchItemFailures`. @default false */
  readonly reportBatchItemFailures?: boolean;
  /** BisectBatchOnFunctionError. @default false */
  readonly bisectOnFunctionError?: boolean;
  /** MaximumRetryAttempts: -1 retries until the record expires (here: for ever). @default -1 */
  readonly maxRetryAttempts?: number;
  /** MaximumRecordAgeInSeconds, in ms: -1 is infinite. @default -1 */
  readonly maxRecordAgeMs?: number;
  /** The function timeout that sets each invocation's deadline. @default 30000 */
  readonly functionTimeoutMs?: number;
  /** Names the function in invocation records. @default 'stream-consumer' */
  readonly functionName?: string;
  /** The wait after a read that found nothing new: Lambda polls each shard 4 times a second. @default 250 */
  readonly pollIntervalMs?: number;
  /** How often the shard list is read again, for new shards (a split, a roll-over). @default 1000 */
  readonly describeIntervalMs?: number;
}

export type ResolvedStreamSettings = Required<StreamMappingSettings>;

/** https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html (BatchSize: maximum 10,000) */
export const STREAM_MAX_BATCH_SIZE = 10_000;

export function resolveStreamSettings(settings: StreamMappingSettings = {}): ResolvedStreamSettings {
  const resolved: ResolvedStreamSettings = {
    batchSize: settings.batchSize ?? 100,
    batchingWindowMs: settings.batchingWindowMs ?? 0,
    startingPosition: settings.startingPosition ?? 'TRIM_HORIZON',
    filters: settings.filters ?? [],
    reportBatchItemFailures: settings.reportBatchItemFailures ?? false,
    bisectOnFunctionError: settings.bisectOnFunctionError ?? false,
    maxRetryAttempts: settings.maxRetryAttempts ?? -1,
    maxRecordAgeMs: settings.maxRecordAgeMs ?? -1,
    functionTimeoutMs: settings.functionTimeoutMs ?? 30_000,
    functionName: settings.functionName ?? 'stream-consumer',
    pollIntervalMs: settings.pollIntervalMs ?? 250,
    describeIntervalMs: settings.describeIntervalMs ?? 1000,
  };
  const problems: string[] = [];
  if (!isIntegerIn(resolved.batchSize, 1, STREAM_MAX_BATCH_SIZE)) {
    problems.push(`batchSize must be an integer in 1..${STREAM_MAX_BATCH_SIZE}`);
  }
  // MaximumBatchingWindowInSeconds is 0..300.
  if (!isIntegerIn(resolved.batchingWindowMs, 0, 300_000))
    problems.push('batchingWindowMs must be in 0..300000');
  if (resolved.startingPosition !== 'TRIM_HORIZON' && resolved.startingPosition !== 'LATEST') {
    problems.push('startingPosition must be TRIM_HORIZON or LATEST');
  }
  if (resolved.maxRetryAttempts !== -1 && !isIntegerIn(resolved.maxRetryAttempts, 0, 10_000)) {
    problems.push('maxRetryAttempts must be -1 or 0..10000');
  }
  // Lambda requires -1 or 60..604800 s; any positive age is allowed here so tests need not wait a minute.
  if (resolved.maxRecordAgeMs !== -1 && !isIntegerIn(resolved.maxRecordAgeMs, 1, 604_800_000)) {
    problems.push('maxRecordAgeMs must be -1 or 1..604800000');
  }
  // Lambda's timeout is 1 s..15 min; shorter is allowed here so tests can time out quickly.
  if (!isIntegerIn(resolved.functionTimeoutMs, 1, 900_000))
    problems.push('functionTimeoutMs must be in 1..900000');
  if (!isIntegerIn(resolved.pollIntervalMs, 1, 60_000)) problems.push('pollIntervalMs must be in 1..60000');
  if (!isIntegerIn(resolved.describeIntervalMs, 1, 600_000)) {
    problems.push('describeIntervalMs must be in 1..600000');
  }
  if (settings.filters !== undefined) problems.push(...streamFilterProblems(settings.filters));
  if (problems.length > 0) throw new EsmSettingsError(problems);
  return resolved;
}
