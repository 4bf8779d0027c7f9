/**
 * Reads one shard in order with GetShardIterator and GetRecords, as Lambda's poller does: from the starting
 * position (TRIM_HORIZON or LATEST) the first time, then from each answer's NextShardIterator. An answer
 * without one means the shard is closed and read to its end. An expired iterator (AWS: 15 minutes) is
 * replaced by one after the last record read, so nothing is skipped or read twice.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
 */
import {
  type _Record,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';

/** GetRecords returns at most 1,000 records per call. */
export const GET_RECORDS_LIMIT = 1000;

export interface ShardRead {
  readonly records: readonly _Record[];
  /** The shard is closed and every record of it has been returned. */
  readonly ended: boolean;
}

/** What a shard's processor reads from: a ShardReader, or a fake in unit tests. */
export interface ShardRecordSource {
  read(limit?: number): Promise<ShardRead>;
}

export class ShardReader implements ShardRecordSource {
  readonly #streams: DynamoDBStreamsClient;
  readonly #streamArn: string;
  readonly #shardId: string;
  readonly #start: 'TRIM_HORIZON' | 'LATEST';
  #iterator: string | undefined;
  #lastSequenceNumber: string | undefined;
  #ended = false;

  constructor(
    streams: DynamoDBStreamsClient,
    streamArn: string,
    shardId: string,
    start: 'TRIM_HORIZON' | 'LATEST',
  ) {
    this.#streams = streams;
    this.#streamArn = streamArn;
    this.#shardId = shardId;
    this.#start = start;
  }

  /**
   * Takes the first iterator now. For LATEST this fixes the starting point: records written after `open`
   * returns are read, earlier ones are not. Called by `read` when not called before.
   */
  async open(): Promise<void> {
    this.#iterator ??= await this.#iteratorFrom(this.#lastSequenceNumber);
  }

  /** The next records of the shard, in order: none when nothing new was written since the last read. */
  async read(limit = GET_RECORDS_LIMIT): Promise<ShardRead> {
    if (this.#ended) return { records: [], ended: true };
    await this.open();
    if (this.#iterator === undefined) {
      // No iterator for the shard: it has nothing (more) to give.
      this.#ended = true;
      return { records: [], ended: true };
    }
    let answer: GetRecordsCommandOutput;
    try {
      answer = await this.#streams.send(
        new GetRecordsCommand({ ShardIterator: this.#iterator, Limit: limit }),
      );
    } catch (error) {
      // DynamoDB Local answers a TRIM_HORIZON iterator taken while the shard was still empty with
      // TrimmedDataAccessException once records arrive: take the iterator again, as for an expired one.
      if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException))
        throw error;
      this.#iterator = await this.#iteratorFrom(this.#lastSequenceNumber);
      return { records: [], ended: false };
    }
    const records = answer.Records ?? [];
    const last = records.at(-1)?.dynamodb?.SequenceNumber;
    if (last !== undefined) this.#lastSequenceNumber = last;
    this.#iterator = answer.NextShardIterator;
    this.#ended = this.#iterator === undefined;
    return { records, ended: this.#ended };
  }

  async #iteratorFrom(afterSequenceNumber: string | undefined): Promise<string | undefined> {
    const { ShardIterator } = await this.#streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.#streamArn,
        ShardId: this.#shardId,
        ...(afterSequenceNumber === undefined
          ? { ShardIteratorType: this.#start }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: afterSequenceNumber }),
      }),
    );
    return ShardIterator;
  }
}
