import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessFunction } from '../../../../local/esm/lambda-function.js';
import type { DynamoDBStreamEvent } from '../../../../local/streams/stream-event.js';
import { StreamEventSourceMapping } from '../../../../local/streams/stream-event-source-mapping.js';
import { mayRead } from '../../../../local/streams/stream-shards.js';

const STREAM_ARN = 'arn:aws:dynamodb:us-east-1:123456789012:table/outbox/stream/2026-01-01T00:00:00.000';

function record(sequence: number): _Record {
  return {
    eventID: `e${sequence}`,
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: new Date(),
      Keys: { pk: { S: `k${sequence}` } },
      NewImage: { pk: { S: `k${sequence}` } },
      SequenceNumber: String(sequence * 100),
      SizeBytes: 10,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

/**
 * A stream of two shards, the child listed first: the parent (closed) holds records 1 and 2 and answers
 * slowly, the child (open) holds 3 and 4. Iterators are `<shard>|<index of the next record>`.
 */
function fakeStream(reads: string[]) {
  const shards: Shard[] = [
    { ShardId: 'child', ParentShardId: 'parent', SequenceNumberRange: { StartingSequenceNumber: '300' } },
    {
      ShardId: 'parent',
      SequenceNumberRange: { StartingSequenceNumber: '100', EndingSequenceNumber: '200' },
    },
  ];
  const records: Record<string, _Record[]> = {
    parent: [record(1), record(2)],
    child: [record(3), record(4)],
  };
  const streams = {
    async send(command: unknown) {
      if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: shards } };
      if (command instanceof GetShardIteratorCommand) return { ShardIterator: `${command.input.ShardId}|0` };
      if (command instanceof GetRecordsCommand) {
        const [shard = '', from = '0'] = (command.input.ShardIterator ?? '').split('|');
        reads.push(shard);
        if (shard === 'parent') await sleep(50);
        const all = records[shard] ?? [];
        const next = Number(from);
        const closedAndRead = shard === 'parent' && next >= all.length;
        return {
          Records: all.slice(next),
          ...(closedAndRead ? {} : { NextShardIterator: `${shard}|${all.length}` }),
        };
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
    destroy() {},
  } as unknown as DynamoDBStreamsClient;
  const dynamoDb = {
    async send() {
      return { Table: { LatestStreamArn: STREAM_ARN, StreamSpecification: { StreamEnabled: true } } };
    },
    destroy() {},
  } as unknown as DynamoDBClient;
  return { streams, dynamoDb };
}

let mapping: StreamEventSourceMapping | undefined;
afterEach(async () => {
  await mapping?.stop();
});

describe('shard lineage', () => {
  it('reads a child shard only once its parent is read to its end and done with', async () => {
    const reads: string[] = [];
    const events: DynamoDBStreamEvent[] = [];
    mapping = new StreamEventSourceMapping({
      endpoint: 'http://unused',
      clients: fakeStream(reads),
      tableName: 'outbox',
      function: new InProcessFunction<DynamoDBStreamEvent>(async (event) => {
        events.push(event);
      }),
      settings: { pollIntervalMs: 5, describeIntervalMs: 10 },
    });
    await mapping.start();

    await mapping.drained(5_000);

    expect(events.map((event) => event.Records.map((r) => r.dynamodb?.SequenceNumber))).toEqual([
      ['100', '200'],
      ['300', '400'],
    ]);
    expect(reads.indexOf('child')).toBeGreaterThan(reads.lastIndexOf('parent'));
    expect(mapping.progress().sort((a, b) => a.shardId.localeCompare(b.shardId))).toEqual([
      { shardId: 'child', checkpoint: '400', pending: 0, ended: false },
      { shardId: 'parent', checkpoint: '200', pending: 0, ended: true },
    ]);
  });

  it('takes a parent no longer listed (trimmed) as done with', () => {
    const child: Shard = { ShardId: 'child', ParentShardId: 'parent' };
    expect(mayRead(child, new Set(['child']), new Set())).toBe(true);
    expect(mayRead(child, new Set(['child', 'parent']), new Set())).toBe(false);
    expect(mayRead(child, new Set(['child', 'parent']), new Set(['parent']))).toBe(true);
  });
});
