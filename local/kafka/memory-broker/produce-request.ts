/**
 * Produce v3-7: appends each partition's record batch to the in-memory log, or answers why not.
 * https://kafka.apache.org/protocol#The_Messages_Produce
 *
 *   Request:  transactional_id: NULLABLE_STRING, acks: INT16, timeout_ms: INT32,
 *             topic_data: [name: STRING, partition_data: [index: INT32, records: RECORDS]]
 *   Response: responses: [name, partition_responses: [index, error_code, base_offset: INT64,
 *             log_append_time_ms: INT64, log_start_offset: INT64 (v5+)]], throttle_time_ms: INT32
 *
 * Every partition stands alone, as on a broker: one may fail while the next is appended. acks -1 and 1 mean
 * the same here (one broker, no replicas to wait for); with acks 0 there is no response, and an error closes
 * the connection instead, which is how a broker tells a client that asked for no answer.
 */
import { KafkaErrorCode } from './error-codes.js';
import { decodeRecordBatch } from './record-batch.js';
import type { BrokerContext, RequestHandler } from './request-context.js';
import { type WireReader, WireWriter } from './wire-format.js';

interface PartitionData {
  readonly index: number;
  readonly records: Buffer | null;
}

interface TopicData {
  readonly name: string;
  readonly partitions: readonly PartitionData[];
}

interface PartitionResponse {
  readonly index: number;
  readonly errorCode: KafkaErrorCode;
  /** The offset of the batch's first record; -1 on error. */
  readonly baseOffset: number;
  readonly reason?: string;
}

const VALID_ACKS = new Set([-1, 0, 1]);

export const handleProduce: RequestHandler = async (version, body, context) => {
  body.nullableString(); // transactional_id: only transactional batches use it, and they are refused
  const acks = body.int16();
  body.int32(); // timeout_ms: appends are immediate
  const topics = body.array(readTopicData);
  const responses: { name: string; partitions: PartitionResponse[] }[] = [];
  for (const topic of topics) {
    const partitions: PartitionResponse[] = [];
    for (const partition of topic.partitions) {
      partitions.push(
        VALID_ACKS.has(acks)
          ? await appendPartition(topic.name, partition, context)
          : refused(partition.index, KafkaErrorCode.INVALID_REQUIRED_ACKS, `acks ${acks}`),
      );
    }
    responses.push({ name: topic.name, partitions });
  }
  if (acks === 0) {
    const failed = responses.flatMap((topic) => topic.partitions).find((p) => p.errorCode !== 0);
    if (failed) throw new Error(`produce with acks 0 failed (error ${failed.errorCode}): ${failed.reason}`);
    return undefined;
  }
  return encodeResponse(version, responses);
};

function readTopicData(reader: WireReader): TopicData {
  return {
    name: reader.string(),
    partitions: reader.array((partition) => ({
      index: partition.int32(),
      records: partition.nullableBytes(),
    })),
  };
}

async function appendPartition(
  topic: string,
  { index, records }: PartitionData,
  context: BrokerContext,
): Promise<PartitionResponse> {
  const partitionCount = context.log.partitionCount(topic);
  if (partitionCount === undefined || index < 0 || index >= partitionCount) {
    return refused(index, KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no partition ${topic}-${index}`);
  }
  const batch = decodeRecordBatch(records, context.maxMessageBytes(topic));
  if (!batch.ok) return refused(index, batch.errorCode, batch.reason);
  const written = await context.log.produce(
    batch.records.map((record) => ({ topic, partition: index, ...record })),
  );
  return { index, errorCode: KafkaErrorCode.NONE, baseOffset: written[0]?.offset ?? -1 };
}

function refused(index: number, errorCode: KafkaErrorCode, reason: string): PartitionResponse {
  return { index, errorCode, baseOffset: -1, reason };
}

function encodeResponse(
  version: number,
  responses: readonly { name: string; partitions: readonly PartitionResponse[] }[],
): Buffer {
  return new WireWriter()
    .array(responses, (writer, topic) => {
      writer.string(topic.name).array(topic.partitions, (partitionWriter, partition) => {
        const failed = partition.errorCode !== KafkaErrorCode.NONE;
        partitionWriter
          .int32(partition.index)
          .int16(partition.errorCode)
          .int64(partition.baseOffset)
          .int64(-1); // log_append_time_ms: -1, the topics keep CreateTime
        if (version >= 5) partitionWriter.int64(failed ? -1 : 0); // log_start_offset: nothing is ever deleted
      });
    })
    .int32(0) // throttle_time_ms
    .toBuffer();
}
