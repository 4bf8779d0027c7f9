/**
 * The invocation record Lambda sends to a DynamoDB stream mapping's on-failure destination for a batch it
 * discards: the shared context and `DDBStreamBatchInfo`, which locates the records in the stream (shard,
 * first and last sequence numbers, arrival times, batch size). SQS and SNS destinations get only that; an S3
 * destination also the whole invoked event as `payload`, which is kept here so a reader can see the records.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
 */
import { randomUUID } from 'node:crypto';
import { type InvocationRecordContext, invocationRecordContext } from '../esm/on-failure-destination.js';
import { type ShardRecord, streamEvent } from './stream-event.js';

/** Why a stream batch was discarded. https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html */
export type StreamFailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

export interface StreamOnFailureRecord extends InvocationRecordContext<StreamFailureCondition> {
  readonly DDBStreamBatchInfo: {
    readonly shardId: string;
    readonly startSequenceNumber: string;
    readonly endSequenceNumber: string;
    /** ISO-8601 to the second, as in AWS's example (`2025-06-05T18:21:49Z`). */
    readonly approximateArrivalOfFirstRecord: string;
    readonly approximateArrivalOfLastRecord: string;
    readonly batchSize: number;
    readonly streamArn: string;
  };
  /** The discarded records as the function received them: `{"Records":[...]}` (S3 destinations only). */
  readonly payload: string;
}

export interface StreamOnFailureInput {
  readonly condition: StreamFailureCondition;
  /** In shard order; never empty. */
  readonly records: readonly ShardRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  readonly functionArn: string;
  readonly approximateInvokeCount: number;
  /** Whether the last attempt was a function error (thrown, crashed, timed out). */
  readonly functionError: boolean;
  readonly now: Date;
}

export function buildStreamOnFailureRecord(input: StreamOnFailureInput): StreamOnFailureRecord {
  const first = input.records[0];
  const last = input.records.at(-1);
  if (!first || !last) throw new Error('an on-failure record needs at least one record');
  return {
    // A batch that aged out before any invocation has no response to describe.
    ...invocationRecordContext({
      ...input,
      requestId: randomUUID(),
      invoked: input.approximateInvokeCount > 0,
    }),
    DDBStreamBatchInfo: {
      shardId: input.shardId,
      startSequenceNumber: first.sequenceNumber,
      endSequenceNumber: last.sequenceNumber,
      approximateArrivalOfFirstRecord: toSecond(first.createdAtMs),
      approximateArrivalOfLastRecord: toSecond(last.createdAtMs),
      batchSize: input.records.length,
      streamArn: input.streamArn,
    },
    payload: JSON.stringify(streamEvent(input.records)),
  };
}

function toSecond(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19)}Z`;
}
