/**
 * `npm start -- --pipeline`, end to end: orders → the order consumer (inbox + outbox) → the outbox relay on
 * the outbox table's stream → payments → the payment consumer, each the bundle its construct deploys, with
 * crashes injected in all three; through the in-memory log's Kafka front, and through the Kafka broker
 * where kcat is installed.
 */
import { describe, expect, inject, it } from 'vitest';
import { formatPipelineSummary } from '../../local/demo/pipeline/pipeline-summary.js';
import { type PipelineOptions, runPipeline } from '../../local/demo/pipeline/run-pipeline.js';
import { skipBrokerTests } from '../support/broker.js';

const OPTIONS: Omit<PipelineOptions, 'source'> = {
  events: 300,
  accounts: 20,
  seed: 7,
  crashRate: 0.3,
  logLevel: 'ERROR',
};

describe('the pipeline, end to end with crashes in every function', () => {
  it('publishes every payment at least once, in commit order, and applies each exactly once (in-memory log)', async () => {
    const result = await runPipeline({
      ...OPTIONS,
      source: 'memory',
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    });

    expect(result.verification.problems).toEqual([]);
    expect(result.verification.payments).toBeGreaterThan(200);
    // Crashes in the consumers, and the relay's after its produce: its retry published copies again.
    expect(result.crashes.orders + result.crashes.payments).toBeGreaterThan(0);
    expect(result.crashes.relay).toBeGreaterThan(0);
    expect(result.verification.republished).toBeGreaterThan(0);
    expect(formatPipelineSummary(result, undefined).split('\n').at(-1)).toMatch(/^verified: /);
  }, 240_000);

  it.skipIf(skipBrokerTests)(
    'does the same through the Kafka broker',
    async () => {
      const result = await runPipeline({
        ...OPTIONS,
        source: 'kafka',
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      });

      expect(result.verification.problems).toEqual([]);
      expect(result.crashes.relay).toBeGreaterThan(0);
      expect(result.sourceDescription).toMatch(/Kafka broker/);
    },
    240_000,
  );
});
