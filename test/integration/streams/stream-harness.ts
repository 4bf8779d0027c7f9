/**
 * The streams emulator's tests, on the run's DynamoDB Local: a fresh table with a stream per test, writes to
 * it, a mapping over its stream whose handler records every event it gets, and the stream read directly
 * (to know sequence numbers the function never saw).
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  CreateTableCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { inject } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local/client.js';
import { type FunctionHandler, InProcessFunction } from '../../../local/esm/lambda-function.js';
import type { DynamoDBRecord, DynamoDBStreamEvent } from '../../../local/streams/stream-event.js';
import {
  StreamEventSourceMapping,
  type StreamEventSourceMappingOptions,
} from '../../../local/streams/stream-event-source-mapping.js';
import { describeShards, latestStreamArn, localStreamsClient } from '../../../local/streams/stream-shards.js';

export interface StreamTable {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Puts `{ pk, value, ...extra }` (strings), one write per call, in order. */
  put(pk: string, value: string, extra?: Record<string, AttributeValue>): Promise<void>;
  remove(pk: string): Promise<void>;
  /** Every sequence number in the stream so far, in shard order (the table has one shard locally). */
  sequenceNumbers(): Promise<string[]>;
}

export async function createStreamTable(
  viewType: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES' = 'NEW_IMAGE',
): Promise<StreamTable> {
  const endpoint = inject('dynamoDbEndpoint');
  const client = localDynamoDbClient(endpoint);
  const tableName = `stream-${randomUUID().slice(0, 8)}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: viewType },
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  return {
    endpoint,
    client,
    tableName,
    async put(pk, value, extra = {}) {
      await client.send(
        new PutItemCommand({ TableName: tableName, Item: { pk: { S: pk }, value: { S: value }, ...extra } }),
      );
    },
    async remove(pk) {
      await client.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: pk } } }));
    },
    async sequenceNumbers() {
      const streams = localStreamsClient(endpoint);
      try {
        const streamArn = await latestStreamArn(client, tableName);
        const numbers: string[] = [];
        for (const shard of await describeShards(streams, streamArn)) {
          let { ShardIterator } = await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shard.ShardId,
              ShardIteratorType: 'TRIM_HORIZON',
            }),
          );
          while (ShardIterator) {
            const page = await streams.send(new GetRecordsCommand({ ShardIterator }));
            const records = page.Records ?? [];
            numbers.push(...records.flatMap((record) => record.dynamodb?.SequenceNumber ?? []));
            ShardIterator = records.length > 0 ? page.NextShardIterator : undefined;
          }
        }
        return numbers;
      } finally {
        streams.destroy();
      }
    },
  };
}

export interface MappingHarness {
  readonly mapping: StreamEventSourceMapping;
  /** Every event the function got, in invocation order. */
  readonly events: DynamoDBStreamEvent[];
}

/** The value attribute of each record of each event: the batches as the function saw them. */
export function valuesOf(events: readonly DynamoDBStreamEvent[]): string[][] {
  return events.map((event) => event.Records.map(itemValue));
}

export function itemValue(record: DynamoDBRecord): string {
  return record.dynamodb?.NewImage?.value?.S ?? `(${record.eventName})`;
}

export function sequenceOf(record: DynamoDBRecord | undefined): string {
  const sequence = record?.dynamodb?.SequenceNumber;
  if (sequence === undefined) throw new Error('a record without SequenceNumber');
  return sequence;
}

/** How long a test waits for a drain: well inside the test timeout, so a stuck mapping fails with its reason. */
export const DRAIN_MS = 10_000;

const started: StreamEventSourceMapping[] = [];

/** A started mapping over the table's stream, running `handler` in this process; stopped by `stopMappings`. */
export async function startMapping(
  table: StreamTable,
  handler: FunctionHandler<DynamoDBStreamEvent>,
  options: Partial<Omit<StreamEventSourceMappingOptions, 'endpoint' | 'tableName' | 'function'>> = {},
): Promise<MappingHarness> {
  const events: DynamoDBStreamEvent[] = [];
  const mapping = new StreamEventSourceMapping({
    ...options,
    endpoint: table.endpoint,
    tableName: table.tableName,
    function: new InProcessFunction<DynamoDBStreamEvent>(
      async (event, context) => {
        events.push(event);
        return handler(event, context);
      },
      { functionName: 'stream-test' },
    ),
    settings: { pollIntervalMs: 20, ...options.settings },
  });
  await mapping.start();
  started.push(mapping);
  return { mapping, events };
}

/** For afterEach: stops every mapping a test started. */
export async function stopMappings(): Promise<void> {
  await Promise.all(started.splice(0).map((mapping) => mapping.stop()));
}
