/** The relay's EMF blob (lambdas/outbox-relay/relay-metrics.ts): every count, zeros included, under the named names. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RelaySummary } from '../../../lambdas/outbox-relay/relay-batch.js';
import { RELAY_METRICS, RELAY_METRICS_DIMENSION } from '../../../lambdas/outbox-relay/relay-metric-names.js';
import { emitRelayMetrics } from '../../../lambdas/outbox-relay/relay-metrics.js';

const SUMMARY: RelaySummary = {
  records: 3,
  skipped: 0,
  malformedRows: 0,
  published: 4,
  quarantined: 1,
  publishFailures: 0,
  storeFailures: 1,
  failedSequenceNumber: '300',
  publishLagMs: 1_500,
  oldestPendingAgeMs: 2_500,
};

function emf(summary: RelaySummary): Record<string, unknown> & { _aws: { CloudWatchMetrics: unknown[] } } {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_DEV = 'true';
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
  const metrics = new Metrics({ namespace: 'MskInbox', serviceName: 'Stack-OutboxRelay-1A2B' });
  emitRelayMetrics(metrics, new Logger({ logLevel: 'SILENT' }), summary);
  metrics.publishStoredMetrics();
  return printed.map((line) => JSON.parse(line)).find((blob) => blob._aws);
}

describe('emitRelayMetrics', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
  });

  it('emits every count, zeros included, and both ages, under the service dimension', () => {
    const blob = emf(SUMMARY);

    expect(blob._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'MskInbox',
      Dimensions: [[RELAY_METRICS_DIMENSION]],
    });
    expect(blob).toMatchObject({
      service: 'Stack-OutboxRelay-1A2B',
      [RELAY_METRICS.eventsPublished]: 4,
      [RELAY_METRICS.eventsQuarantined]: 1,
      [RELAY_METRICS.publishFailures]: 0,
      [RELAY_METRICS.storeFailures]: 1,
      [RELAY_METRICS.malformedRows]: 0,
      [RELAY_METRICS.publishLag]: 1_500,
      [RELAY_METRICS.oldestPendingAge]: 2_500,
    });
  });

  it('leaves the ages out when nothing was measured', () => {
    const blob = emf({ ...SUMMARY, publishLagMs: undefined, oldestPendingAgeMs: undefined });

    expect(blob).not.toHaveProperty(RELAY_METRICS.publishLag);
    expect(blob).not.toHaveProperty(RELAY_METRICS.oldestPendingAge);
    expect(blob).toHaveProperty(RELAY_METRICS.eventsPublished, 4);
  });
});
