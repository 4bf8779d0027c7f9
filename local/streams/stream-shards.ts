/**
 * A table's stream and its shards, as DescribeTable and DescribeStream give them, and the lineage rule that
 * orders them: "because shards have a lineage (parent and children), an application must always process a
 * parent shard before it processes a child shard" (docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source).
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, type Shard } from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../dynamodb-local/client.js';

/** The DynamoDB Streams API of a DynamoDB Local (one endpoint serves both APIs), under the local identity. */
export function localStreamsClient(endpoint: string): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 3,
  });
}

/** The table's current stream; a table without one is a setup error worth a sentence. */
export async function latestStreamArn(dynamoDb: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await dynamoDb.send(new DescribeTableCommand({ TableName: tableName }));
  const arn = Table?.LatestStreamArn;
  if (arn === undefined || Table?.StreamSpecification?.StreamEnabled !== true) {
    throw new Error(
      `table ${tableName} has no enabled stream: create it with StreamSpecification { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' }`,
    );
  }
  return arn;
}

/** Every shard of the stream, following DescribeStream's pages. */
export async function describeShards(streams: DynamoDBStreamsClient, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let ExclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }),
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (ExclusiveStartShardId !== undefined);
  return shards;
}

/** Whether DescribeStream shows the shard closed: no record will be added to it (it has an ending number). */
export function isClosed(shard: Shard): boolean {
  return shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
}

/**
 * Whether a shard may be read now: its parent is finished, or not listed any more (trimmed with its records
 * past the 24-hour retention, or never known), so nothing of the parent is left to come first.
 */
export function mayRead(shard: Shard, listed: ReadonlySet<string>, finished: ReadonlySet<string>): boolean {
  const parent = shard.ParentShardId;
  return parent === undefined || !listed.has(parent) || finished.has(parent);
}
