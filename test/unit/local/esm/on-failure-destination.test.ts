import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMskEvent } from '../../../../local/esm/msk-event.js';
import {
  buildOnFailureRecord,
  FolderDestination,
  s3ObjectKey,
} from '../../../../local/esm/on-failure-destination.js';

const event = buildMskEvent(
  { eventSource: 'aws:kafka', eventSourceArn: 'arn:aws:kafka:x', bootstrapServers: 'k:9092' },
  [
    {
      topic: 'orders',
      partition: 2,
      offset: 41,
      timestamp: Date.UTC(2026, 0, 2, 3, 4, 5),
      timestampType: 'CREATE_TIME',
      key: null,
      value: Buffer.from('x'),
      headers: [],
    },
  ],
);

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('FolderDestination', () => {
  it('writes the S3 record under the S3 object key and reads it back when a batch is given up', async () => {
    folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
    const destination = new FolderDestination(folder, 'esm-uuid');
    const record = buildOnFailureRecord({
      condition: 'RetryAttemptsExhausted',
      event,
      requestId: 'req',
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:f',
      approximateInvokeCount: 3,
      functionError: true,
      now: new Date(Date.UTC(2026, 0, 2, 3, 4, 6)),
    });
    await destination.send(record);
    const files = await readdir(folder, { recursive: true });
    expect(files.filter((name) => name.includes('T03.04.06-'))).toEqual([
      expect.stringMatching(
        /^aws\/lambda\/esm-uuid\/orders-2\/2026\/01\/02\/2026-01-02T03\.04\.06-[0-9a-f-]{36}$/,
      ),
    ]);
    const [read] = await destination.list();
    expect(read).toEqual(record);
    expect(read?.KafkaBatchInfo).toEqual({
      batchSize: 1,
      eventSourceArn: 'arn:aws:kafka:x',
      bootstrapServers: 'k:9092',
      payloadSize: Buffer.byteLength(JSON.stringify(event)),
      recordsInfo: {
        'orders-2': {
          firstRecordOffset: '41',
          lastRecordOffset: '41',
          firstRecordTimestamp: '2026-01-02T03:04:05.000Z',
          lastRecordTimestamp: '2026-01-02T03:04:05.000Z',
        },
      },
    });
    expect(JSON.parse(read?.payload ?? '')).toEqual(event);
  });

  it('lists nothing when the folder does not exist yet', async () => {
    expect(await new FolderDestination('/nonexistent/on-failure', 'x').list()).toEqual([]);
  });
});

describe('s3ObjectKey', () => {
  it('follows aws/lambda/<ESM-UUID>/<shard>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid> when given a time', () => {
    expect(s3ObjectKey('u', 'orders-0', new Date(Date.UTC(2026, 10, 29, 23, 59, 1)))).toMatch(
      /^aws\/lambda\/u\/orders-0\/2026\/11\/29\/2026-11-29T23\.59\.01-[0-9a-f-]{36}$/,
    );
  });
});
