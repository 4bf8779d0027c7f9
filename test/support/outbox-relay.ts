/**
 * The outbox relay's test bench on DynamoDB Local: an outbox table with its stream, appends written as
 * the consumer writes them (lambdas/core/outbox-rows.ts, one UpdateItem per append), the table's stream
 * read back as Lambda would hand it to the relay (binary values base64, only appends let through, as the
 * event source's filter does).
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  type DynamoDBClient,
  UpdateItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type AttributeValue as StreamSdkValue,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { inject } from 'vitest';
import { outboxEventId } from '../../lambdas/core/outbox-event-id.js';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_EVENT_FIELDS as F,
  OUTBOX_CHANGE,
  OUTBOX_LIMITS,
  outboxKeyPart,
  outboxQueueKey,
} from '../../lambdas/core/outbox-rows.js';
import { pendingBytesOf } from '../../lambdas/outbox-relay/queue-row.js';
import { RELAY_STREAM_FILTER } from '../../lambdas/outbox-relay/relay-stream-filter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { streamRecordFilter } from '../../local/streams/stream-filter.js';

export interface OutboxBench {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly streamArn: string;
  /** Stream records written since the last call, in order, as the relay's event source delivers them. */
  nextEvent(options?: { readonly unfiltered?: boolean }): Promise<DynamoDBStreamEvent>;
}

/** A fresh outbox table, keyed by `pk`, its stream giving new images, as the relay's construct makes it. */
export async function createOutboxBench(): Promise<OutboxBench> {
  const endpoint = inject('dynamoDbEndpoint');
  const client = localDynamoDbClient(endpoint);
  const tableName = `outbox-${randomUUID().slice(0, 8)}`;
  const created = await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: A.pk, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: A.pk, KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  const streamArn = created.TableDescription?.LatestStreamArn as string;
  const streams = new DynamoDBStreamsClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  let lastSequence: string | undefined;
  return {
    client,
    tableName,
    streamArn,
    async nextEvent(options = {}) {
      const records = await readStream(streams, streamArn, lastSequence);
      lastSequence = records.at(-1)?.dynamodb?.SequenceNumber ?? lastSequence;
      return {
        Records: records.filter((record) => options.unfiltered || passesRelayFilter(record)),
      };
    },
  };
}

/** The event source's filter, as the relay construct deploys it (one definition: relay-stream-filter.ts). */
const passesRelayFilter = streamRecordFilter([RELAY_STREAM_FILTER]);

async function readStream(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  after: string | undefined,
): Promise<DynamoDBRecord[]> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const records: DynamoDBRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    let { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    // DynamoDB Local answers an empty page at the shard's end; a few pages cover what a test writes.
    for (let page = 0; ShardIterator && page < 10; page++) {
      const answer = await streams.send(new GetRecordsCommand({ ShardIterator }));
      if (!answer.Records?.length) break;
      for (const record of answer.Records) {
        records.push({
          eventID: record.eventID,
          eventName: record.eventName as DynamoDBRecord['eventName'],
          eventVersion: record.eventVersion,
          eventSource: 'aws:dynamodb',
          awsRegion: record.awsRegion,
          eventSourceARN: streamArn,
          dynamodb: {
            SequenceNumber: record.dynamodb?.SequenceNumber,
            StreamViewType: 'NEW_IMAGE',
            ...(record.dynamodb?.Keys ? { Keys: lambdaImage(record.dynamodb.Keys) } : {}),
            ...(record.dynamodb?.NewImage ? { NewImage: lambdaImage(record.dynamodb.NewImage) } : {}),
          },
        });
      }
      ShardIterator = answer.NextShardIterator;
    }
  }
  return records.sort((a, b) =>
    BigInt(a.dynamodb?.SequenceNumber ?? 0) < BigInt(b.dynamodb?.SequenceNumber ?? 0) ? -1 : 1,
  );
}

/** The SDK's form of an image in Lambda's JSON form: binary as base64. */
function lambdaImage(image: Record<string, StreamSdkValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaValue(value)]));
}

function lambdaValue(value: StreamSdkValue): AttributeValue {
  if (value.B) return { B: Buffer.from(value.B).toString('base64') };
  if (value.M) return { M: lambdaImage(value.M) };
  if (value.L) return { L: value.L.map(lambdaValue) };
  return value as AttributeValue;
}

export interface EmittedEvent {
  readonly value: string | Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AppendOptions {
  readonly consumer: string;
  readonly topic: string;
  readonly key: string;
  /** The source event's dedup key: the events' ids are outboxEventId(consumer, source, position). */
  readonly source: string;
  readonly events: readonly EmittedEvent[];
  readonly committedAt: number;
}

/** The queue row's key for a consumer's topic and key. */
export function queueKey(consumer: string, topic: string, key: string): string {
  return outboxQueueKey(consumer, topic, outboxKeyPart(key));
}

/**
 * A consumer's append (outbox-rows.ts): the events at the list's end, `change = appended`, `oldest_at`
 * kept if set, `pending_bytes` raised, refused past OUTBOX_LIMITS.pendingBytes. Returns the ids.
 */
export async function appendToOutbox(
  client: DynamoDBClient,
  tableName: string,
  options: AppendOptions,
): Promise<string[]> {
  const ids = options.events.map((_, position) => outboxEventId(options.consumer, options.source, position));
  const bytes = options.events.reduce(
    (sum, event) => sum + pendingBytesOf(event.value, options.key, event.headers ?? {}),
    0,
  );
  await client.send(
    new UpdateItemCommand({
      TableName: tableName,
      Key: { [A.pk]: { S: queueKey(options.consumer, options.topic, options.key) } },
      UpdateExpression:
        'SET #events = list_append(if_not_exists(#events, :empty), :new), #change = :appended, #oldestAt = if_not_exists(#oldestAt, :now), #topic = :topic, #key = :key, #consumer = :consumer ADD #pendingBytes :bytes',
      ConditionExpression: 'attribute_not_exists(#pendingBytes) OR #pendingBytes <= :room',
      ExpressionAttributeNames: {
        '#events': A.events,
        '#change': A.change,
        '#oldestAt': A.oldestAt,
        '#topic': A.topic,
        '#key': A.kafkaKey,
        '#consumer': A.consumer,
        '#pendingBytes': A.pendingBytes,
      },
      ExpressionAttributeValues: {
        ':empty': { L: [] },
        ':new': {
          L: options.events.map((event, position) => ({
            M: {
              [F.id]: { S: ids[position] as string },
              [F.value]: typeof event.value === 'string' ? { S: event.value } : { B: event.value },
              [F.headers]: {
                M: Object.fromEntries(Object.entries(event.headers ?? {}).map(([n, v]) => [n, { S: v }])),
              },
              [F.committedAt]: { N: String(options.committedAt) },
              [F.source]: { S: options.source },
            },
          })),
        },
        ':appended': { S: OUTBOX_CHANGE.appended },
        ':now': { N: String(options.committedAt) },
        ':topic': { S: options.topic },
        ':key': { S: options.key },
        ':consumer': { S: options.consumer },
        ':bytes': { N: String(bytes) },
        ':room': { N: String(OUTBOX_LIMITS.pendingBytes - bytes) },
      },
    }),
  );
  return ids;
}
