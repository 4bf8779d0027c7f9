/**
 * The on-failure destination: where the mapping puts a batch it gives up on. The S3 form carries the
 * metadata plus the whole event, so the folder destination writes exactly that JSON, one file per batch.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html (S3 destination example invocation record)
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { MskEvent } from './msk-event.js';

/**
 * `RetryAttemptsExhausted` and `MaximumPayloadSizeExceeded` are documented for Kafka; `RecordAgeExceeded`
 * is the Kinesis/DynamoDB Streams name, assumed for Kafka's maximum record age.
 */
export type FailureCondition = 'RetryAttemptsExhausted' | 'MaximumPayloadSizeExceeded' | 'RecordAgeExceeded';

/**
 * How every event source's invocation record begins (Kafka's here, the DynamoDB stream's in local/streams/):
 * who gave up, why, and how the last attempt ended.
 */
export interface InvocationRecordContext<TCondition extends string = FailureCondition> {
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: TCondition;
    readonly approximateInvokeCount: number;
  };
  /** Null when no invocation carried the batch (too large; or, for streams, aged out before any). */
  readonly responseContext: {
    readonly statusCode: number;
    readonly executedVersion: string;
    readonly functionError?: string;
  } | null;
  readonly version: '1.0';
  /** ISO-8601. */
  readonly timestamp: string;
}

export interface InvocationContextInput<TCondition extends string> {
  readonly condition: TCondition;
  readonly requestId: string;
  readonly functionArn: string;
  readonly approximateInvokeCount: number;
  /** Whether the last attempt was a function error (thrown, crashed, timed out) rather than reported records. */
  readonly functionError: boolean;
  /** False for a batch given up before any invocation carried it. */
  readonly invoked: boolean;
  readonly now: Date;
}

export function invocationRecordContext<TCondition extends string>(
  input: InvocationContextInput<TCondition>,
): InvocationRecordContext<TCondition> {
  return {
    requestContext: {
      requestId: input.requestId,
      functionArn: input.functionArn,
      condition: input.condition,
      approximateInvokeCount: input.approximateInvokeCount,
    },
    // The documented example: null when the payload was too large to invoke.
    responseContext: input.invoked
      ? {
          statusCode: 200,
          executedVersion: '$LATEST',
          ...(input.functionError ? { functionError: 'Unhandled' } : {}),
        }
      : null,
    version: '1.0',
    timestamp: input.now.toISOString(),
  };
}

export interface OnFailureRecord extends InvocationRecordContext {
  readonly KafkaBatchInfo: {
    readonly batchSize: number;
    readonly eventSourceArn?: string;
    readonly bootstrapServers: string;
    readonly payloadSize: number;
    /** Offsets as strings, timestamps ISO-8601, keyed by `<topic>-<partition>`. */
    readonly recordsInfo: Readonly<
      Record<
        string,
        {
          readonly firstRecordOffset: string;
          readonly lastRecordOffset: string;
          readonly firstRecordTimestamp: string;
          readonly lastRecordTimestamp: string;
        }
      >
    >;
  };
  /** The whole invoked event as an escaped JSON string (S3 destinations only). */
  readonly payload: string;
}

/** The record type is a parameter: Kafka's invocation record by default, the DynamoDB stream's in local/streams/. */
export interface OnFailureDestination<TRecord = OnFailureRecord> {
  /** For summaries, e.g. the folder path. */
  describe(): string;
  send(record: TRecord): Promise<void>;
  /** Every record sent so far, oldest first. */
  list(): Promise<TRecord[]>;
}

/** Whether the batch was invoked follows from the condition: only a batch too large never was. */
export interface OnFailureRecordInput extends Omit<InvocationContextInput<FailureCondition>, 'invoked'> {
  readonly event: MskEvent;
}

export function buildOnFailureRecord(input: OnFailureRecordInput): OnFailureRecord {
  const payload = JSON.stringify(input.event);
  const partitions = Object.entries(input.event.records);
  return {
    ...invocationRecordContext({ ...input, invoked: input.condition !== 'MaximumPayloadSizeExceeded' }),
    KafkaBatchInfo: {
      batchSize: partitions.reduce((sum, [, records]) => sum + records.length, 0),
      ...(input.event.eventSourceArn !== undefined ? { eventSourceArn: input.event.eventSourceArn } : {}),
      bootstrapServers: input.event.bootstrapServers,
      payloadSize: Buffer.byteLength(payload),
      recordsInfo: Object.fromEntries(
        partitions.map(([key, records]) => {
          const first = records[0];
          const last = records.at(-1);
          return [
            key,
            {
              firstRecordOffset: String(first?.offset),
              lastRecordOffset: String(last?.offset),
              firstRecordTimestamp: new Date(first?.timestamp ?? 0).toISOString(),
              lastRecordTimestamp: new Date(last?.timestamp ?? 0).toISOString(),
            },
          ];
        }),
      ),
    },
    payload,
  };
}

/** Keeps records in memory: for tests. */
export class InMemoryDestination<TRecord = OnFailureRecord> implements OnFailureDestination<TRecord> {
  readonly records: TRecord[] = [];

  describe(): string {
    return 'memory';
  }

  async send(record: TRecord): Promise<void> {
    this.records.push(record);
  }

  async list(): Promise<TRecord[]> {
    return [...this.records];
  }
}

/** A local folder standing in for the S3 bucket: same object keys, same JSON. */
export class FolderDestination implements OnFailureDestination {
  readonly #root: string;
  readonly #mappingUuid: string;

  constructor(root: string, mappingUuid: string) {
    this.#root = root;
    this.#mappingUuid = mappingUuid;
  }

  describe(): string {
    return this.#root;
  }

  async send(record: OnFailureRecord): Promise<void> {
    const shard = Object.keys(record.KafkaBatchInfo.recordsInfo)[0] ?? 'unknown';
    const path = join(this.#root, s3ObjectKey(this.#mappingUuid, shard, new Date(record.timestamp)));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(record, null, 2)}\n`);
  }

  async list(): Promise<OnFailureRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.#root, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records: OnFailureRecord[] = [];
    for (const name of names.sort()) {
      if (!/T\d\d\.\d\d\.\d\d-/.test(name)) continue;
      records.push(JSON.parse(await readFile(join(this.#root, name), 'utf8')) as OnFailureRecord);
    }
    return records;
  }
}

/**
 * The S3 object key: `aws/lambda/<ESM-UUID>/<shardID>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<Random UUID>`, as
 * documented for Kinesis (https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html);
 * assumed for Kafka with `<topic>-<partition>` as the shard.
 */
export function s3ObjectKey(mappingUuid: string, shard: string, at: Date): string {
  const iso = at.toISOString();
  const day = iso.slice(0, 10);
  const time = iso.slice(11, 19).replaceAll(':', '.');
  return ['aws', 'lambda', mappingUuid, shard, ...day.split('-'), `${day}T${time}-${randomUUID()}`].join('/');
}
