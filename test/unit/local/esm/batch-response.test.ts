import { describe, expect, it } from 'vitest';
import { checkpoints, interpretResponse } from '../../../../local/esm/batch-response.js';
import type { MskEvent, MskEventRecord } from '../../../../local/esm/msk-event.js';

const at = (offset: number): MskEventRecord => ({
  topic: 'orders',
  partition: 0,
  offset,
  timestamp: 0,
  timestampType: 'CREATE_TIME',
  key: null,
  value: null,
  headers: [],
});
const event: MskEvent = {
  eventSource: 'aws:kafka',
  bootstrapServers: 'k:9092',
  records: { 'orders-0': [at(3), at(4), at(5)], 'orders-1': [{ ...at(9), partition: 1 }] },
};
const failing = (partition: unknown, offset: unknown) => ({ itemIdentifier: { partition, offset } });

describe('interpretResponse', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an empty object', {}],
    ['an empty list', { batchItemFailures: [] }],
    ['a null list', { batchItemFailures: null }],
  ])('says the whole batch succeeded when the response is %s', (_, response) => {
    expect(interpretResponse(event, response)).toEqual({ kind: 'success' });
  });

  it('keeps the lowest reported offset per partition when several records are reported', () => {
    const verdict = interpretResponse(event, {
      batchItemFailures: [failing('orders-0', 5), failing('orders-0', 4), failing('orders-1', 9)],
    });
    expect(verdict).toEqual({
      kind: 'partial',
      lowestFailedOffsets: new Map([
        ['orders-0', 4],
        ['orders-1', 9],
      ]),
    });
  });

  it.each([
    ['an offset not in the event', { batchItemFailures: [failing('orders-0', 6)] }],
    ['a partition not in the event', { batchItemFailures: [failing('orders-2', 3)] }],
    ['a flat string identifier', { batchItemFailures: [{ itemIdentifier: 'orders-0' }] }],
    ['an offset given as a string', { batchItemFailures: [failing('orders-0', '4')] }],
    ['a list that is not a list', { batchItemFailures: 'orders-0' }],
    ['a string response', 'ok'],
  ])('retries the whole batch when the response has %s', (_, response) => {
    expect(interpretResponse(event, response).kind).toBe('invalid');
  });
});

describe('checkpoints', () => {
  it('commits every partition past its last record when the whole batch succeeded', () => {
    expect(checkpoints(event, { kind: 'success' })).toEqual([
      {
        key: 'orders-0',
        topicPartition: { topic: 'orders', partition: 0 },
        commitOffset: 6,
        redeliver: false,
      },
      {
        key: 'orders-1',
        topicPartition: { topic: 'orders', partition: 1 },
        commitOffset: 10,
        redeliver: false,
      },
    ]);
  });

  it('commits a partition up to its lowest reported offset and redelivers from it; the others go past', () => {
    const verdict = interpretResponse(event, {
      batchItemFailures: [failing('orders-0', 5), failing('orders-0', 4)],
    });
    if (verdict.kind === 'invalid') throw new Error(verdict.reason);
    expect(checkpoints(event, verdict)).toEqual([
      {
        key: 'orders-0',
        topicPartition: { topic: 'orders', partition: 0 },
        commitOffset: 4,
        redeliver: true,
      },
      {
        key: 'orders-1',
        topicPartition: { topic: 'orders', partition: 1 },
        commitOffset: 10,
        redeliver: false,
      },
    ]);
  });
});
