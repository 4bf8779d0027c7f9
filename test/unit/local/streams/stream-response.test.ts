import { describe, expect, it } from 'vitest';
import { type ShardRecord, toShardRecord } from '../../../../local/streams/stream-event.js';
import { interpretStreamResponse } from '../../../../local/streams/stream-response.js';

const batch: ShardRecord[] = ['100', '200', '300'].map((SequenceNumber) =>
  toShardRecord(
    { eventName: 'INSERT', dynamodb: { SequenceNumber, Keys: { pk: { S: SequenceNumber } } } },
    'arn',
  ),
);
const verdict = (response: unknown, reportBatchItemFailures = true) =>
  interpretStreamResponse(batch, response, reportBatchItemFailures);
const failing = (...itemIdentifiers: unknown[]) => ({
  batchItemFailures: itemIdentifiers.map((itemIdentifier) => ({ itemIdentifier })),
});

describe("Lambda's reading of a stream function's response", () => {
  it('takes an empty or null list, or an empty or null response, as a complete success', () => {
    for (const response of [{ batchItemFailures: [] }, { batchItemFailures: null }, {}, null, undefined]) {
      expect(verdict(response)).toEqual({ kind: 'success' });
    }
  });

  it('retries from the lowest reported sequence number, whatever the order of the list', () => {
    expect(verdict(failing('300', '200'))).toEqual({ kind: 'partial', failedIndex: 1 });
    expect(verdict(failing('100'))).toEqual({ kind: 'partial', failedIndex: 0 });
  });

  it('fails the whole batch on an empty, null, missing or unknown itemIdentifier', () => {
    for (const response of [
      failing(''),
      failing(null),
      { batchItemFailures: [{ itemIdentifer: '200' }] },
      failing('250'),
      failing(200),
      { batchItemFailures: 'all' },
      'ok',
      [],
    ]) {
      expect(verdict(response).kind).toBe('failed');
    }
  });

  it('ignores the response without ReportBatchItemFailures', () => {
    expect(verdict(failing('100'), false)).toEqual({ kind: 'success' });
    expect(verdict('anything', false)).toEqual({ kind: 'success' });
  });
});
