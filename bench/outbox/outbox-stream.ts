/**
 * The outbox table's stream as the relay's event source reads it (local/streams/), for the bench: every
 * record written since the last read, in order, as the SDK gives it (its images sized by bench/cost/capacity-units.ts)
 * and as Lambda hands it to the relay (stream-event.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ShardReader } from '../../local/streams/shard-reader.js';
import { type ShardRecord, toShardRecord } from '../../local/streams/stream-event.js';
import { describeShards, latestStreamArn, localStreamsClient } from '../../local/streams/stream-shards.js';

export interface StreamRead {
  readonly sdk: _Record;
  readonly shardRecord: ShardRecord;
}

export class OutboxStream {
  readonly #streams: DynamoDBStreamsClient;
  readonly #streamArn: string;
  readonly #readers = new Map<string, ShardReader>();

  private constructor(streams: DynamoDBStreamsClient, streamArn: string) {
    this.#streams = streams;
    this.#streamArn = streamArn;
  }

  static async open(endpoint: string, dynamoDb: DynamoDBClient, tableName: string): Promise<OutboxStream> {
    return new OutboxStream(localStreamsClient(endpoint), await latestStreamArn(dynamoDb, tableName));
  }

  /**
   * The records written since the last call, until `enough` of them are read or `timeoutMs` passes:
   * DynamoDB Local may show a write on its stream a moment after the write returned.
   */
  async readNew(
    enough: (records: readonly StreamRead[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<StreamRead[]> {
    const records: StreamRead[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const shard of await describeShards(this.#streams, this.#streamArn)) {
        const id = shard.ShardId as string;
        let reader = this.#readers.get(id);
        if (!reader) {
          reader = new ShardReader(this.#streams, this.#streamArn, id, 'TRIM_HORIZON');
          this.#readers.set(id, reader);
        }
        for (;;) {
          const read = await reader.read();
          for (const sdk of read.records) {
            records.push({ sdk, shardRecord: toShardRecord(sdk, this.#streamArn) });
          }
          if (read.records.length === 0 || read.ended) break;
        }
      }
      if (enough(records)) return records;
      if (Date.now() > deadline)
        throw new Error(`the outbox stream showed ${records.length} records, fewer than written`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  destroy(): void {
    this.#streams.destroy();
  }
}
