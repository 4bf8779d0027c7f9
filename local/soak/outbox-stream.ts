/**
 * An outbox schedule's table on DynamoDB Local (one per schedule, so its stream holds that schedule's rows
 * alone), its stream read in order as the relay's event source reads it (local/streams/shard-reader.ts),
 * and what the checks read from it: the commit order of each queue row, and what the table holds at the end.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_EVENT_FIELDS as F,
  OUTBOX_CHANGE,
} from '../../lambdas/core/outbox-rows.js';
import { scanAll } from '../dynamodb-local/tables.js';
import { ShardReader } from '../streams/shard-reader.js';
import { type ShardRecord, toShardRecord } from '../streams/stream-event.js';
import { describeShards } from '../streams/stream-shards.js';
import { rowName } from './outbox-checks.js';

/** A fresh outbox table as the OutboxTable construct makes it: `pk`, a stream of new images. */
export async function createOutboxTable(client: DynamoDBClient, tableName: string): Promise<string> {
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
  const arn = created.TableDescription?.LatestStreamArn;
  if (arn === undefined) throw new Error(`outbox table ${tableName} has no stream`);
  return arn;
}

export async function deleteOutboxTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
}

/** Every record of the stream so far, in order; each read adds what was written since. */
export class OutboxStream {
  readonly records: ShardRecord[] = [];
  readonly #streams: DynamoDBStreamsClient;
  readonly #arn: string;
  readonly #readers = new Map<string, ShardReader>();

  constructor(streams: DynamoDBStreamsClient, arn: string) {
    this.#streams = streams;
    this.#arn = arn;
  }

  /** Reads each shard to its current end; returns the records new since the last call. */
  async readNew(): Promise<ShardRecord[]> {
    const fresh: ShardRecord[] = [];
    for (const shard of await describeShards(this.#streams, this.#arn)) {
      const id = shard.ShardId as string;
      let reader = this.#readers.get(id);
      if (!reader) {
        reader = new ShardReader(this.#streams, this.#arn, id, 'TRIM_HORIZON');
        this.#readers.set(id, reader);
      }
      // DynamoDB Local answers an empty page at the shard's end (or once for a trimmed-iterator retry).
      for (let page = 0; page < 50; page++) {
        const read = await reader.read();
        fresh.push(...read.records.map((record) => toShardRecord(record, this.#arn)));
        if (read.ended || (read.records.length === 0 && page > 0)) break;
      }
    }
    fresh.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
    this.records.push(...fresh);
    return fresh;
  }
}

/**
 * Each queue row's ids in the order its appends put them there: an append adds to the list's end, so a
 * row's appended images, in stream order (one item's changes keep their order), list its ids in commit
 * order; an id is placed where it first shows.
 */
export function commitOrderOf(records: readonly DynamoDBRecord[]): Map<string, string[]> {
  const order = new Map<string, string[]>();
  const placed = new Set<string>();
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (!image || image[A.change]?.S !== OUTBOX_CHANGE.appended) continue;
    const row = rowName(image[A.topic]?.S ?? '?', image[A.kafkaKey]?.S ?? '?');
    for (const id of idsOf(image[A.events])) {
      if (placed.has(id)) continue;
      placed.add(id);
      order.set(row, [...(order.get(row) ?? []), id]);
    }
  }
  return order;
}

function idsOf(events: AttributeValue | undefined): string[] {
  return (events?.L ?? []).flatMap((event) => {
    const id = event.M?.[F.id]?.S;
    return id === undefined ? [] : [id];
  });
}

/** What the table holds at the end, read by a consistent scan. */
export async function outboxContents(
  client: DynamoDBClient,
  tableName: string,
): Promise<{ leftInQueues: { pk: string; ids: string[] }[]; quarantined: string[] }> {
  const leftInQueues: { pk: string; ids: string[] }[] = [];
  const quarantined: string[] = [];
  for (const item of await scanAll(client, tableName)) {
    const pk = item[A.pk]?.S ?? '';
    if (pk.startsWith('quarantine#')) {
      quarantined.push(item[A.event]?.M?.[F.id]?.S ?? pk);
    } else {
      leftInQueues.push({ pk, ids: idsOf(item[A.events] as AttributeValue | undefined) });
    }
  }
  return { leftInQueues, quarantined };
}
