import { describe, expect, it } from 'vitest';
import { toShardRecord } from '../../../../local/streams/stream-event.js';
import { resolveStreamSettings } from '../../../../local/streams/stream-settings.js';

describe('a stream record as the function receives it', () => {
  it('carries bytes as base64 at every depth and the creation time in epoch seconds', () => {
    const bytes = new Uint8Array([0, 1, 254, 255]);
    const record = toShardRecord(
      {
        eventID: 'e1',
        eventName: 'MODIFY',
        dynamodb: {
          ApproximateCreationDateTime: new Date('2026-01-02T03:04:05Z'),
          SequenceNumber: '000000000000000000042',
          NewImage: {
            b: { B: bytes },
            bs: { BS: [bytes] },
            l: { L: [{ B: bytes }, { N: '1.50' }] },
            m: { M: { inner: { B: bytes }, n: { NULL: true } } },
          },
        },
      },
      'arn:stream',
    );
    const base64 = Buffer.from(bytes).toString('base64');
    expect(record.event).toEqual({
      eventID: 'e1',
      eventName: 'MODIFY',
      eventSource: 'aws:dynamodb',
      eventSourceARN: 'arn:stream',
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2026-01-02T03:04:05Z') / 1000,
        SequenceNumber: '000000000000000000042',
        NewImage: {
          b: { B: base64 },
          bs: { BS: [base64] },
          l: { L: [{ B: base64 }, { N: '1.50' }] },
          m: { M: { inner: { B: base64 }, n: { NULL: true } } },
        },
      },
    });
    expect(record.sequence).toBe(42n);
    expect(record.bytes).toBe(Buffer.byteLength(JSON.stringify(record.event)) + 1);
  });
});

describe('the stream mapping settings', () => {
  it("has Lambda's defaults for DynamoDB Streams", () => {
    expect(resolveStreamSettings()).toMatchObject({
      batchSize: 100,
      batchingWindowMs: 0,
      startingPosition: 'TRIM_HORIZON',
      maxRetryAttempts: -1,
      maxRecordAgeMs: -1,
      bisectOnFunctionError: false,
      reportBatchItemFailures: false,
    });
  });

  it('refuses what Lambda refuses, naming each problem', () => {
    expect(() =>
      resolveStreamSettings({
        batchSize: 10_001,
        maxRetryAttempts: -2,
        filters: [{ dynamodb: { NewImage: { change: { S: [{ wildcard: 'app*' }] } } } }],
      }),
    ).toThrow(/batchSize must be an integer in 1\.\.10000.*maxRetryAttempts.*filters\[0\]/);
  });
});
