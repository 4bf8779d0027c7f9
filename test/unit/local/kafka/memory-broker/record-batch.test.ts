import { describe, expect, it } from 'vitest';
import type { RecordHeader } from '../../../../../local/esm/record-source.js';
import { crc32c } from '../../../../../local/kafka/memory-broker/crc32c.js';
import { KafkaErrorCode } from '../../../../../local/kafka/memory-broker/error-codes.js';
import { decodeRecordBatch } from '../../../../../local/kafka/memory-broker/record-batch.js';
import { WireReader } from '../../../../../local/kafka/memory-broker/wire-format.js';

describe('WireReader varints', () => {
  it('reads zigzag varints and varlongs as the record format writes them', () => {
    const cases: [number, number[]][] = [
      [0, [0x00]],
      [-1, [0x01]],
      [1, [0x02]],
      [300, [0xd8, 0x04]],
      [-2147483648, [0xff, 0xff, 0xff, 0xff, 0x0f]],
      [2147483647, [0xfe, 0xff, 0xff, 0xff, 0x0f]],
    ];
    for (const [value, bytes] of cases) {
      expect(new WireReader(Buffer.from(bytes)).varint()).toBe(value);
      expect(new WireReader(Buffer.from(bytes)).varlong()).toBe(value);
    }
    expect(new WireReader(Buffer.from([0xf6, 0xa1, 0xab, 0xfe, 0xf9, 0x62])).varlong()).toBe(1700000000123);
    expect(new WireReader(Buffer.from([0xf5, 0xa1, 0xab, 0xfe, 0xf9, 0x62])).varlong()).toBe(-1700000000123);
  });
});

interface TestRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: readonly RecordHeader[];
  readonly timestampDelta?: number;
  readonly offsetDelta?: number;
}

const BASE_TIMESTAMP = 1_700_000_000_000;
const LIMIT = 1_048_588;

describe('decodeRecordBatch', () => {
  it('decodes keys, values, null keys and values, headers and timestamps of a magic-2 batch', () => {
    const headers = [
      { key: 'trace', value: Buffer.from('abc') },
      { key: 'trace', value: Buffer.from([0, 255]) },
    ];

    const decoded = decodeRecordBatch(
      encodeBatch([
        { key: Buffer.from('k1'), value: Buffer.from('v1'), headers },
        { key: null, value: null, timestampDelta: 5 },
      ]),
      LIMIT,
    );

    expect(decoded).toEqual({
      ok: true,
      records: [
        { key: Buffer.from('k1'), value: Buffer.from('v1'), headers, timestamp: BASE_TIMESTAMP },
        { key: null, value: null, headers: [], timestamp: BASE_TIMESTAMP + 5 },
      ],
    });
  });

  it.each([
    ['a changed byte (CRC-32C mismatch)', 'CORRUPT_MESSAGE', corruptLastByte(encodeBatch([oneRecord()]))],
    ['a batch cut short', 'CORRUPT_MESSAGE', encodeBatch([oneRecord()]).subarray(0, 70)],
    [
      'two batches',
      'INVALID_RECORD',
      Buffer.concat([encodeBatch([oneRecord()]), encodeBatch([oneRecord()])]),
    ],
    ['magic 1', 'INVALID_RECORD', encodeBatch([oneRecord()], { magic: 1 })],
    ['gzip', 'UNSUPPORTED_COMPRESSION_TYPE', encodeBatch([oneRecord()], { attributes: 1 })],
    ['a transactional batch', 'INVALID_RECORD', encodeBatch([oneRecord()], { attributes: 0x10 })],
    ['offset deltas 0, 2', 'INVALID_RECORD', encodeBatch([oneRecord(), { ...oneRecord(), offsetDelta: 2 }])],
    [
      'a record length that overruns',
      'CORRUPT_MESSAGE',
      encodeBatch([oneRecord()], { recordLengthExtra: 1 }),
    ],
    ['no record set', 'INVALID_RECORD', null],
  ] as const)('refuses %s with %s', (_, errorName, recordSet) => {
    expect(decodeRecordBatch(recordSet, LIMIT)).toMatchObject({
      ok: false,
      errorCode: KafkaErrorCode[errorName],
    });
  });

  it('compares the whole batch, log overhead included, with the limit, before its CRC', () => {
    const batch = encodeBatch([oneRecord()]);

    expect(decodeRecordBatch(batch, batch.length)).toMatchObject({ ok: true });
    expect(decodeRecordBatch(corruptLastByte(batch), batch.length - 1)).toMatchObject({
      ok: false,
      errorCode: KafkaErrorCode.MESSAGE_TOO_LARGE,
    });
  });
});

function oneRecord(): TestRecord {
  return { key: Buffer.from('key'), value: Buffer.from('value') };
}

function corruptLastByte(batch: Buffer): Buffer {
  const copy = Buffer.from(batch);
  copy[copy.length - 2] = (copy[copy.length - 2] ?? 0) ^ 0xff;
  return copy;
}

/** A record batch as the Kafka record format lays it out, written independently of the decoder. */
function encodeBatch(
  records: readonly TestRecord[],
  options: { magic?: number; attributes?: number; recordLengthExtra?: number } = {},
): Buffer {
  const encodedRecords = records.map((record, index) => {
    const body = Buffer.concat([
      Buffer.from([0]),
      varint(record.timestampDelta ?? 0),
      varint(record.offsetDelta ?? index),
      varintBytes(record.key),
      varintBytes(record.value),
      varint(record.headers?.length ?? 0),
      ...(record.headers ?? []).flatMap((header) => [
        varintBytes(Buffer.from(header.key)),
        varintBytes(header.value),
      ]),
    ]);
    return Buffer.concat([varint(body.length + (options.recordLengthExtra ?? 0)), body]);
  });
  const afterCrc = Buffer.alloc(40);
  afterCrc.writeInt16BE(options.attributes ?? 0, 0);
  afterCrc.writeInt32BE(records.length - 1, 2); // lastOffsetDelta
  afterCrc.writeBigInt64BE(BigInt(BASE_TIMESTAMP), 6);
  afterCrc.writeBigInt64BE(BigInt(BASE_TIMESTAMP), 14); // maxTimestamp
  afterCrc.writeBigInt64BE(-1n, 22); // producerId
  afterCrc.writeInt16BE(-1, 30); // producerEpoch
  afterCrc.writeInt32BE(-1, 32); // baseSequence
  afterCrc.writeInt32BE(records.length, 36);
  const checked = Buffer.concat([afterCrc, ...encodedRecords]);
  const head = Buffer.alloc(21);
  head.writeBigInt64BE(0n, 0); // baseOffset
  head.writeInt32BE(21 - 12 + checked.length, 8); // batchLength: from partitionLeaderEpoch to the end
  head.writeInt32BE(0, 12); // partitionLeaderEpoch
  head.writeInt8(options.magic ?? 2, 16);
  head.writeUInt32BE(crc32c(checked), 17);
  return Buffer.concat([head, checked]);
}

function varint(value: number): Buffer {
  let zigzag = ((value << 1) ^ (value >> 31)) >>> 0;
  const bytes: number[] = [];
  while (zigzag > 0x7f) {
    bytes.push((zigzag & 0x7f) | 0x80);
    zigzag >>>= 7;
  }
  bytes.push(zigzag);
  return Buffer.from(bytes);
}

function varintBytes(bytes: Buffer | null): Buffer {
  return bytes === null ? varint(-1) : Buffer.concat([varint(bytes.length), bytes]);
}
