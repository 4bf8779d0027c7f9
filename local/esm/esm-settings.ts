import { filterProblems, type KafkaRecordFilter } from '../../lib/kafka-filters.js';

/**
 * The event source mapping settings the emulator honours, with Lambda's defaults and limits for Kafka.
 * https://docs.aws.amazon.com/lambda/latest/dg/msk-esm-parameters.html
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
 */
export interface EsmSettings {
  /** @default 100 (Kafka's default; at most 10,000) */
  readonly batchSize?: number;
  /** @default 500 (MaximumBatchingWindowInSeconds defaults to 0.5 s for Kafka) */
  readonly batchingWindowMs?: number;
  /** The function timeout that sets each invocation's deadline. @default 30000 */
  readonly functionTimeoutMs?: number;
  /** MaximumRetryAttempts: -1 is infinite, which Lambda caps at 10 when a destination is set. @default -1 */
  readonly maxRetryAttempts?: number;
  /** MaximumRecordAgeInSeconds in ms: -1 is infinite. @default -1 */
  readonly maxRecordAgeMs?: number;
  /** BisectBatchOnFunctionError. @default false */
  readonly bisectOnFunctionError?: boolean;
  /** Whether an on-failure destination is configured (it caps infinite retries). @default true */
  readonly hasOnFailureDestination?: boolean;
  /** Provisioned pollers, each owning a share of the partitions and invoking one batch at a time. @default 1 */
  readonly pollers?: number;
  /** `aws:kafka` (MSK, with an ARN) or `SelfManagedKafka`. @default 'aws:kafka' */
  readonly eventSource?: 'aws:kafka' | 'SelfManagedKafka';
  /** @default a fixed local MSK cluster ARN */
  readonly eventSourceArn?: string;
  /** Names the S3 objects in the destination. @default a fixed UUID */
  readonly mappingUuid?: string;
  /** @default 'order-consumer' */
  readonly functionName?: string;
  /** FilterCriteria on `value`, checked and matched by the construct's rules (lib/kafka-filters.ts). @default none */
  readonly filters?: readonly KafkaRecordFilter[];
}

export type ResolvedEsmSettings = Required<EsmSettings> & {
  /** Infinite retries with a destination become 10; -1 only without one. */
  readonly effectiveMaxRetryAttempts: number;
};

export const KAFKA_MAX_BATCH_SIZE = 10_000;
/** With a destination, infinite retries are capped at 10. https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html */
export const RETRY_CAP_WITH_DESTINATION = 10;

export const DEFAULT_EVENT_SOURCE_ARN =
  'arn:aws:kafka:us-east-1:123456789012:cluster/local/6f2b1c0e-1d2a-4c57-9a0e-6c1f3b4d5e6f-1';

export class EsmSettingsError extends Error {
  constructor(problems: readonly string[]) {
    super(`Invalid event source mapping settings: ${problems.join('; ')}`);
    this.name = 'EsmSettingsError';
  }
}

export function resolveEsmSettings(settings: EsmSettings = {}): ResolvedEsmSettings {
  const resolved = {
    batchSize: settings.batchSize ?? 100,
    batchingWindowMs: settings.batchingWindowMs ?? 500,
    functionTimeoutMs: settings.functionTimeoutMs ?? 30_000,
    maxRetryAttempts: settings.maxRetryAttempts ?? -1,
    maxRecordAgeMs: settings.maxRecordAgeMs ?? -1,
    bisectOnFunctionError: settings.bisectOnFunctionError ?? false,
    hasOnFailureDestination: settings.hasOnFailureDestination ?? true,
    pollers: settings.pollers ?? 1,
    eventSource: settings.eventSource ?? 'aws:kafka',
    eventSourceArn: settings.eventSourceArn ?? DEFAULT_EVENT_SOURCE_ARN,
    mappingUuid: settings.mappingUuid ?? '0b3f6a52-8d0c-4e59-a1a2-5c3d2e1f0a9b',
    functionName: settings.functionName ?? 'order-consumer',
    filters: settings.filters ?? [],
  };
  const problems: string[] = [];
  if (!isIntegerIn(resolved.batchSize, 1, KAFKA_MAX_BATCH_SIZE)) {
    problems.push(`batchSize must be an integer in 1..${KAFKA_MAX_BATCH_SIZE}`);
  }
  // MaximumBatchingWindowInSeconds is 0..300.
  if (!isIntegerIn(resolved.batchingWindowMs, 0, 300_000))
    problems.push('batchingWindowMs must be in 0..300000');
  // Lambda's timeout is 1 s..15 min; shorter is allowed here so tests can time out quickly.
  if (!isIntegerIn(resolved.functionTimeoutMs, 1, 900_000))
    problems.push('functionTimeoutMs must be in 1..900000');
  if (resolved.maxRetryAttempts !== -1 && !isIntegerIn(resolved.maxRetryAttempts, 0, 10_000)) {
    problems.push('maxRetryAttempts must be -1 or 0..10000');
  }
  // Lambda requires -1 or 60..604800 s; any positive age is allowed here so tests need not wait a minute.
  if (resolved.maxRecordAgeMs !== -1 && !isIntegerIn(resolved.maxRecordAgeMs, 1, 604_800_000)) {
    problems.push('maxRecordAgeMs must be -1 or 1..604800000');
  }
  if (!isIntegerIn(resolved.pollers, 1, 2000)) problems.push('pollers must be in 1..2000');
  if (settings.filters !== undefined) problems.push(...filterProblems(settings.filters));
  if (problems.length > 0) throw new EsmSettingsError(problems);
  const effectiveMaxRetryAttempts =
    resolved.maxRetryAttempts === -1 && resolved.hasOnFailureDestination
      ? RETRY_CAP_WITH_DESTINATION
      : resolved.maxRetryAttempts;
  return { ...resolved, effectiveMaxRetryAttempts };
}

export function isIntegerIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
