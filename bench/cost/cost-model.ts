/**
 * What one record costs a consumer, from the bench's counts: DynamoDB write and read units as DynamoDB
 * bills them (billed-capacity.ts), Lambda invocations and billed milliseconds at the consumer function's
 * memory and architecture (lib/function-defaults.ts), turned into dollars per million events at PRICES.
 */
import { CONSUMER_ARCHITECTURE, DEFAULT_CONSUMER_MEMORY_MB } from '../../lib/function-defaults.js';
import { PRICES } from './prices.js';

const MB_PER_GB = 1024;
const MILLION = 1_000_000;

/** Lambda bills an invocation's duration rounded up to the next millisecond: https://aws.amazon.com/lambda/pricing/ */
export function billedMilliseconds(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs));
}

/** GB-seconds of `billedMs` at `memoryMb` (Lambda's GB is 1,024 MB). */
export function gbSeconds(billedMs: number, memoryMb: number = DEFAULT_CONSUMER_MEMORY_MB): number {
  return (billedMs / 1000) * (memoryMb / MB_PER_GB);
}

/** A scenario's counts, per record. */
export interface CountsPerRecord {
  /** Absent for a store billed per instance-hour (Postgres, Redis): only the Lambda side is priced. */
  readonly dynamoDb?: { readonly writeUnits: number; readonly readUnits: number };
  readonly invocations: number;
  readonly billedMilliseconds: number;
}

/** USD per million events, by what bills them. */
export interface DollarsPerMillion {
  readonly dynamoDbWrites: number;
  readonly dynamoDbReads: number;
  readonly lambdaRequests: number;
  readonly lambdaDuration: number;
  readonly total: number;
}

export function dollarsPerMillionEvents(counts: CountsPerRecord): DollarsPerMillion {
  const dynamoDbWrites = (counts.dynamoDb?.writeUnits ?? 0) * PRICES.dynamoDb.writeRequestUnitsPerMillion;
  const dynamoDbReads = (counts.dynamoDb?.readUnits ?? 0) * PRICES.dynamoDb.readRequestUnitsPerMillion;
  const lambdaRequests = counts.invocations * PRICES.lambda.requestsPerMillion;
  const lambdaDuration =
    gbSeconds(counts.billedMilliseconds) * PRICES.lambda.gbSecond[CONSUMER_ARCHITECTURE] * MILLION;
  return {
    dynamoDbWrites,
    dynamoDbReads,
    lambdaRequests,
    lambdaDuration,
    total: dynamoDbWrites + dynamoDbReads + lambdaRequests + lambdaDuration,
  };
}

/** What a record costs, as the results and docs/benchmarks.json both carry it. */
export interface RecordCost {
  /**
   * Write and read units DynamoDB bills per record, from the items' sizes (bench/cost/billed-capacity.ts),
   * not DynamoDB Local's ConsumedCapacity; absent for a store billed per instance-hour (Postgres, Redis).
   */
  readonly writeUnitsPerRecord?: number;
  readonly readUnitsPerRecord?: number;
  /** Lambda invocations per record (the batches). */
  readonly invocationsPerRecord: number;
  /** Lambda's billed duration per record: each invocation rounded up to the next ms, over all runs. */
  readonly billedMsPerRecord: number;
  /** GB-seconds per record at the consumer function's default memory (lib/function-defaults.ts). */
  readonly gbSecondsPerRecord: number;
  /** USD per million events at bench/cost/prices.ts; Postgres and Redis: Lambda only. */
  readonly dollarsPerMillion: DollarsPerMillion;
}
