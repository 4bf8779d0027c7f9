/**
 * DynamoDB stream records as Lambda's stream event source hands them to a function: each record as
 * GetRecords returns it, in its JSON form (binary attributes base64, ApproximateCreationDateTime in epoch
 * seconds), with `eventSourceARN` the stream's ARN, the batch under `Records`.
 * Sources: docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source.
 */
import type {
  AttributeValue as SdkAttributeValue,
  _Record as SdkRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent, StreamRecord } from 'aws-lambda';

export type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/** A record of one shard, shaped once when read: what the mapping orders, batches, ages and delivers. */
export interface ShardRecord {
  readonly sequenceNumber: string;
  /** The sequence number as a number: they grow within a shard, but not by one and not in fixed width. */
  readonly sequence: bigint;
  /** ApproximateCreationDateTime in epoch ms: what MaximumRecordAgeInSeconds is measured against. */
  readonly createdAtMs: number;
  /** The record as the function receives it. */
  readonly event: DynamoDBRecord;
  /** Its UTF-8 JSON size, counted against the 6 MB invocation payload. */
  readonly bytes: number;
}

/** The bytes of `{"Records":[]}` around the records (commas between them are counted per record). */
export const STREAM_EVENT_ENVELOPE_BYTES = Buffer.byteLength(JSON.stringify({ Records: [] }));

export function toShardRecord(record: SdkRecord, streamArn: string): ShardRecord {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (sequenceNumber === undefined) throw new Error(`stream record ${record.eventID} has no SequenceNumber`);
  const created = record.dynamodb?.ApproximateCreationDateTime;
  const event = toLambdaRecord(record, streamArn);
  return {
    sequenceNumber,
    sequence: BigInt(sequenceNumber),
    createdAtMs: created?.getTime() ?? 0,
    event,
    bytes: Buffer.byteLength(JSON.stringify(event)) + 1,
  };
}

/** The batch as one invocation's event. */
export function streamEvent(records: readonly ShardRecord[]): DynamoDBStreamEvent {
  return { Records: records.map((record) => record.event) };
}

/** The record as Lambda's event carries it, fields in the order of AWS's example event. */
function toLambdaRecord(record: SdkRecord, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb;
  const dynamodb: StreamRecord = {
    ...(change?.ApproximateCreationDateTime !== undefined
      ? { ApproximateCreationDateTime: change.ApproximateCreationDateTime.getTime() / 1000 }
      : {}),
    ...(change?.Keys !== undefined ? { Keys: toJsonImage(change.Keys) } : {}),
    ...(change?.NewImage !== undefined ? { NewImage: toJsonImage(change.NewImage) } : {}),
    ...(change?.OldImage !== undefined ? { OldImage: toJsonImage(change.OldImage) } : {}),
    ...(change?.SequenceNumber !== undefined ? { SequenceNumber: change.SequenceNumber } : {}),
    ...(change?.SizeBytes !== undefined ? { SizeBytes: change.SizeBytes } : {}),
    ...(change?.StreamViewType !== undefined ? { StreamViewType: change.StreamViewType } : {}),
  };
  return {
    ...(record.eventID !== undefined ? { eventID: record.eventID } : {}),
    ...(record.eventName !== undefined ? { eventName: record.eventName } : {}),
    ...(record.eventVersion !== undefined ? { eventVersion: record.eventVersion } : {}),
    eventSource: record.eventSource ?? 'aws:dynamodb',
    ...(record.awsRegion !== undefined ? { awsRegion: record.awsRegion } : {}),
    dynamodb,
    eventSourceARN: streamArn,
    // Present on TTL deletions: { type: 'Service', principalId: 'dynamodb.amazonaws.com' }.
    ...(record.userIdentity !== undefined ? { userIdentity: record.userIdentity } : {}),
  };
}

function toJsonImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toJsonValue(value)]));
}

/** The SDK's attribute value (bytes as Uint8Array) as DynamoDB JSON, which carries bytes as base64. */
function toJsonValue(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toJsonValue) };
  if (value.M !== undefined) return { M: toJsonImage(value.M) };
  throw new Error(`an attribute value of no known type: ${JSON.stringify(value)}`);
}
