/**
 * Decodes the record set of one partition in a Produce request: exactly one record batch of magic 2,
 * uncompressed, checked as a broker checks it before appending. https://kafka.apache.org/documentation/#recordbatch
 *
 *   baseOffset: int64, batchLength: int32, partitionLeaderEpoch: int32, magic: int8, crc: uint32,
 *   attributes: int16, lastOffsetDelta: int32, baseTimestamp: int64, maxTimestamp: int64,
 *   producerId: int64, producerEpoch: int16, baseSequence: int32, records: [Record] (INT32 count)
 *
 *   Record: length: varint, attributes: int8, timestampDelta: varlong, offsetDelta: varint,
 *   key: varint bytes, value: varint bytes, headers: [key: varint string, value: varint bytes] (VARINT count)
 */
import type { RecordHeader } from '../../esm/record-source.js';
import { crc32c } from './crc32c.js';
import { KafkaErrorCode } from './error-codes.js';
import { WireFormatError, WireReader } from './wire-format.js';

export interface DecodedRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
  /** Epoch milliseconds: the batch's base timestamp plus the record's delta (CreateTime). */
  readonly timestamp: number;
}

export type BatchDecoding =
  | { readonly ok: true; readonly records: readonly DecodedRecord[] }
  | { readonly ok: false; readonly errorCode: KafkaErrorCode; readonly reason: string };

/** baseOffset and batchLength come before what batchLength counts. */
const LOG_OVERHEAD = 12;
/** Offsets within the batch (the Java client's DefaultRecordBatch constants). */
const MAGIC_OFFSET = 16;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const RECORDS_COUNT_OFFSET = 57;
const RECORD_BATCH_OVERHEAD = 61;

const COMPRESSION_MASK = 0x07;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;

/**
 * The checks run in a broker's order: the request's shape (one magic-2 batch, ProduceRequest.validateRecords),
 * then size against max.message.bytes, then the CRC (UnifiedLog.analyzeAndValidateRecords), then the records.
 * The size compared is the whole batch with its 12-byte log overhead, as the broker's `batch.sizeInBytes()`;
 * that is why Kafka's default message.max.bytes is 1048588, 1 MiB plus 12.
 */
export function decodeRecordBatch(recordSet: Buffer | null, maxMessageBytes: number): BatchDecoding {
  if (recordSet === null || recordSet.length < LOG_OVERHEAD) {
    return refuse(KafkaErrorCode.INVALID_RECORD, 'a Produce request v3+ carries exactly one record batch');
  }
  const batchSize = LOG_OVERHEAD + recordSet.readInt32BE(8);
  if (batchSize < RECORD_BATCH_OVERHEAD || batchSize > recordSet.length) {
    return refuse(KafkaErrorCode.CORRUPT_MESSAGE, `batch length ${batchSize} in ${recordSet.length} bytes`);
  }
  if (batchSize < recordSet.length) {
    return refuse(KafkaErrorCode.INVALID_RECORD, 'a Produce request v3+ carries exactly one record batch');
  }
  const magic = recordSet.readInt8(MAGIC_OFFSET);
  if (magic !== 2) {
    return refuse(KafkaErrorCode.INVALID_RECORD, `magic ${magic}: Produce v3+ takes magic 2 batches only`);
  }
  if (batchSize > maxMessageBytes) {
    return refuse(
      KafkaErrorCode.MESSAGE_TOO_LARGE,
      `batch of ${batchSize} bytes exceeds max.message.bytes ${maxMessageBytes}`,
    );
  }
  if (recordSet.readUInt32BE(CRC_OFFSET) !== crc32c(recordSet.subarray(ATTRIBUTES_OFFSET))) {
    return refuse(KafkaErrorCode.CORRUPT_MESSAGE, 'batch CRC-32C mismatch');
  }
  const attributes = recordSet.readInt16BE(ATTRIBUTES_OFFSET);
  if ((attributes & COMPRESSION_MASK) !== 0) {
    return refuse(
      KafkaErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      `compression codec ${attributes & COMPRESSION_MASK}: the in-memory broker takes uncompressed batches only`,
    );
  }
  if ((attributes & (TRANSACTIONAL_FLAG | CONTROL_FLAG)) !== 0) {
    return refuse(KafkaErrorCode.INVALID_RECORD, 'transactional or control batch: no transactions here');
  }
  try {
    return { ok: true, records: decodeRecords(recordSet) };
  } catch (error) {
    if (error instanceof InvalidRecordError) return refuse(KafkaErrorCode.INVALID_RECORD, error.message);
    if (error instanceof WireFormatError || error instanceof RangeError) {
      return refuse(KafkaErrorCode.CORRUPT_MESSAGE, `records do not parse: ${error.message}`);
    }
    throw error;
  }
}

class InvalidRecordError extends Error {}

function decodeRecords(batch: Buffer): DecodedRecord[] {
  const header = new WireReader(batch.subarray(ATTRIBUTES_OFFSET + 2));
  const lastOffsetDelta = header.int32();
  const baseTimestamp = Number(header.int64());
  const count = batch.readInt32BE(RECORDS_COUNT_OFFSET);
  if (count < 1 || lastOffsetDelta !== count - 1) {
    throw new InvalidRecordError(`${count} records with last offset delta ${lastOffsetDelta}`);
  }
  const reader = new WireReader(batch.subarray(RECORD_BATCH_OVERHEAD));
  const records: DecodedRecord[] = [];
  for (let index = 0; index < count; index++) {
    const length = reader.varint();
    if (length < 0) throw new WireFormatError(`record length ${length}`);
    const start = reader.offset;
    records.push(decodeRecord(reader, index, baseTimestamp));
    if (reader.offset - start !== length) {
      throw new WireFormatError(`record ${index} spans ${reader.offset - start} bytes, says ${length}`);
    }
  }
  if (reader.remaining !== 0) throw new WireFormatError(`${reader.remaining} bytes after the last record`);
  return records;
}

function decodeRecord(reader: WireReader, index: number, baseTimestamp: number): DecodedRecord {
  reader.int8(); // record attributes: unused by every magic-2 format so far
  const timestampDelta = reader.varlong();
  const offsetDelta = reader.varint();
  if (offsetDelta !== index) throw new InvalidRecordError(`record ${index} has offset delta ${offsetDelta}`);
  const key = reader.varintBytes();
  const value = reader.varintBytes();
  const headerCount = reader.varint();
  if (headerCount < 0 || headerCount > reader.remaining) throw new WireFormatError(`${headerCount} headers`);
  const headers = Array.from({ length: headerCount }, () => ({
    key: reader.varintString(),
    // Kafka allows a null header value; the log's headers hold bytes, so null arrives as empty bytes.
    // (kafkajs 2.2.4 cannot send one anyway: its header size computation throws on null.)
    value: reader.varintBytes() ?? Buffer.alloc(0),
  }));
  return { key, value, headers, timestamp: baseTimestamp + timestampDelta };
}

function refuse(errorCode: KafkaErrorCode, reason: string): BatchDecoding {
  return { ok: false, errorCode, reason };
}
