import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { summarizeBatch } from '../../../lambdas/core/batch-summary.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { powertoolsTelemetry } from '../../../lambdas/core/powertools-telemetry.js';
import { kafkaEvent } from '../../support/kafka-events.js';

describe('powertoolsTelemetry', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
  });

  it('emits one EMF blob with every outcome count, zeros included, and the batch figures', () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    process.env.POWERTOOLS_DEV = 'true';
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
    const metrics = new Metrics({ namespace: 'MskInbox', serviceName: 'orders' });
    const logger = new Logger({ serviceName: 'orders', logLevel: 'SILENT' });
    const partitions = decodeEvent(
      kafkaEvent([
        { offset: 1, timestamp: 1_000 },
        { offset: 2, timestamp: 2_000 },
      ]),
    );
    const outcomes: RecordOutcome[] = [
      {
        partitionKey: 'orders-0',
        offset: 1,
        coordinates: 'orders-0@1',
        status: 'processed',
        leaseLost: true,
      },
      {
        partitionKey: 'orders-0',
        offset: 2,
        coordinates: 'orders-0@2',
        status: 'quarantined',
        reason: 'payload-conflict',
      },
    ];

    powertoolsTelemetry(logger, metrics).batchProcessed(
      summarizeBatch(partitions, outcomes, 5_000, 5_250),
      outcomes,
    );
    metrics.publishStoredMetrics();

    const emf = printed.map((line) => JSON.parse(line)).find((blob) => blob._aws);
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'MskInbox', Dimensions: [['service']] });
    expect(emf).toMatchObject({
      service: 'orders',
      Processed: 1,
      Quarantined: 1,
      Duplicates: 0,
      InFlight: 0,
      Failed: 0,
      Deferred: 0,
      Blocked: 0,
      Skipped: 0,
      LeaseLost: 1,
      PayloadConflicts: 1,
      BatchRecords: 2,
      BatchDuration: 250,
      RecordLatency: 4_250,
    });
  });

  it('logs reported and quarantined records with coordinates and reason but never the payload', () => {
    const logger = new Logger({ serviceName: 'orders', logLevel: 'INFO' });
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    const partitions = decodeEvent(kafkaEvent([{ offset: 1, value: { secret: 'card-4242' } }]));
    const outcomes: RecordOutcome[] = [
      {
        partitionKey: 'orders-0',
        offset: 1,
        coordinates: 'orders-0@1',
        status: 'failed',
        reason: 'InboxStoreError',
      },
    ];

    powertoolsTelemetry(logger, new Metrics({ namespace: 'x' })).batchProcessed(
      summarizeBatch(partitions, outcomes, 0, 1),
      outcomes,
    );

    expect(error).toHaveBeenCalledWith(
      'record failed',
      expect.objectContaining({ coordinates: 'orders-0@1' }),
    );
    expect(JSON.stringify([...error.mock.calls, ...warn.mock.calls])).not.toContain('card-4242');
  });
});
