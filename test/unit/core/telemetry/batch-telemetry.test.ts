import { afterEach, describe, expect, it, vi } from 'vitest';
import { summarizeBatch } from '../../../../lambdas/core/batch-summary.js';
import { decodeEvent } from '../../../../lambdas/core/decode-event.js';
import type { RecordOutcome } from '../../../../lambdas/core/outcome.js';
import { batchTelemetry } from '../../../../lambdas/core/telemetry/batch-telemetry.js';
import { EmfMetrics } from '../../../../lambdas/core/telemetry/emf-metrics.js';
import { JsonLogger } from '../../../../lambdas/core/telemetry/json-logger.js';
import { parseEmfLog } from '../../../../local/dashboard/emf.js';
import { capturedWrites } from '../../../support/captured-writes.js';
import { kafkaEvent } from '../../../support/kafka-events.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const silent = () => new JsonLogger({ serviceName: 'orders', env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } });

describe('batchTelemetry', () => {
  it('emits one EMF line with every outcome count, zeros included, and the batch figures', () => {
    const metrics = new EmfMetrics({ namespace: 'MskInbox', serviceName: 'orders', disabled: false });
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
    const output = capturedWrites();

    batchTelemetry(silent(), metrics).batchProcessed(
      summarizeBatch(partitions, outcomes, 5_000, 5_250),
      outcomes,
    );
    metrics.publishStoredMetrics();

    // Read as CloudWatch reads EMF: one line, every metric in namespace MskInbox under service=orders.
    const { metrics: emitted, problems } = parseEmfLog(output.stdout());
    expect(problems).toEqual([]);
    expect(output.stdout().trim().split('\n')).toHaveLength(1);
    const value = (name: string) => {
      const found = emitted.filter((m) => m.name === name);
      expect(found, name).toHaveLength(1);
      expect(found[0]).toMatchObject({ namespace: 'MskInbox', dimensions: { service: 'orders' } });
      return { unit: found[0]?.unit, values: found[0]?.values };
    };
    for (const [name, count] of Object.entries({
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
    })) {
      expect(value(name), name).toEqual({ unit: 'Count', values: [count] });
    }
    expect(value('BatchDuration')).toEqual({ unit: 'Milliseconds', values: [250] });
    expect(value('RecordLatency')).toEqual({ unit: 'Milliseconds', values: [4_250] });
    expect(emitted).toHaveLength(13);
  });

  it('logs reported and quarantined records with coordinates and reason but never the payload', () => {
    const logger = new JsonLogger({ serviceName: 'orders', env: { POWERTOOLS_LOG_LEVEL: 'INFO' } });
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
    const output = capturedWrites();

    batchTelemetry(
      logger,
      new EmfMetrics({ namespace: 'x', serviceName: 'x', disabled: true }),
    ).batchProcessed(summarizeBatch(partitions, outcomes, 0, 1), outcomes);

    const lines = output.lines();
    expect(lines.find((line) => line.message === 'record failed')).toMatchObject({
      level: 'ERROR',
      coordinates: 'orders-0@1',
      reason: 'InboxStoreError',
    });
    expect(lines.find((line) => line.message === 'batch processed')).toMatchObject({
      level: 'INFO',
      records: 1,
      counts: { failed: 1 },
    });
    expect(output.stdout() + output.stderr()).not.toContain('card-4242');
  });
});
