/**
 * A consumer's logs and metrics, written as a deployed function writes them: by default lambdas/core/telemetry's
 * JSON lines and EMF, published once per invocation (after the batch, and after a batch that failed as a
 * whole); with a team's own Powertools Logger and Metrics passed in, through theirs. The EMF is read as
 * CloudWatch reads it (local/dashboard/emf.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createInboxConsumer, type InboxConsumerOptions } from '../../../lambdas/core/index.js';
import { parseEmfLine } from '../../../local/dashboard/emf.js';
import { capturedWrites } from '../../support/captured-writes.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';

let tables: TestTables;
const saved = { ...process.env };

beforeAll(async () => {
  tables = await createTestTables();
});

beforeEach(() => {
  // As deployed (vitest.config.ts turns metrics off and logs down): metrics on, INFO, an on-demand start.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  delete process.env.POWERTOOLS_DEV;
});

afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

function payments(options: Pick<InboxConsumerOptions, 'logger' | 'metrics'> = {}) {
  const handler = createInboxConsumer({
    ...options,
    effect: () => ({ kind: 'skip', reason: 'not-a-payment' }),
    settings: { inboxTableName: tables.inboxTableName, consumerName: 'payments' },
    dynamoDb: tables.client,
  });
  const clock = new ManualClock();
  return (event: unknown) => handler(event, lambdaContext(clock));
}

const batch = () => kafkaEvent([{ offset: 1, headers: { event_id: 'e1' }, value: { cents: 5 } }]);

/** Each EMF line's metrics as name=values, with the line's namespace and service. */
function emfLines(lines: readonly Record<string, unknown>[]) {
  return lines.flatMap((line) => {
    const parsed = parseEmfLine(JSON.stringify(line));
    if (parsed.kind === 'not-emf') return [];
    if (parsed.kind === 'invalid') throw new Error(parsed.problem);
    const first = parsed.metrics[0];
    return [
      {
        namespace: first?.namespace,
        service: first?.dimensions.service,
        metrics: Object.fromEntries(parsed.metrics.map((m) => [m.name, m.values])),
      },
    ];
  });
}

describe("a consumer's logs and metrics", () => {
  it('are by default one EMF line per invocation and JSON lines with its context, a failed batch included', async () => {
    const consumer = payments();
    const output = capturedWrites();

    await consumer(batch());
    await expect(consumer({ records: 'none' })).rejects.toThrow();

    const lines = output.lines();
    const emf = emfLines(lines);
    expect(emf).toHaveLength(2);
    expect(emf[0]).toMatchObject({ namespace: 'MskInbox', service: 'payments' });
    expect(emf[0]?.metrics).toMatchObject({ Skipped: [1], Processed: [0], BatchRecords: [1] });
    expect(emf[1]).toEqual({ namespace: 'MskInbox', service: 'payments', metrics: { FailedBatches: [1] } });
    const logs = lines.filter((line) => !('_aws' in line));
    expect(logs.map((line) => [line.level, line.message, line.cold_start])).toEqual([
      ['INFO', 'batch processed', true],
      ['ERROR', 'batch failed as a whole', false],
    ]);
    expect(logs[0]).toMatchObject({
      service: 'payments',
      function_name: 'order-consumer',
      function_request_id: 'test-request',
      counts: { skipped: 1 },
    });
    expect(logs[1]?.error).toMatchObject({ name: expect.any(String), message: expect.any(String) });
  });

  it("go through a team's own Powertools Logger and Metrics when passed, context and publishing included", async () => {
    const consumer = payments({
      logger: new Logger({ serviceName: 'payments-team' }),
      metrics: new Metrics({ namespace: 'Payments', serviceName: 'payments-team' }),
    });
    const output = capturedWrites();

    await consumer(batch());

    const lines = output.lines();
    const emf = emfLines(lines);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ namespace: 'Payments', service: 'payments-team' });
    expect(emf[0]?.metrics).toMatchObject({ Skipped: [1], BatchRecords: [1] });
    expect(lines.find((line) => line.message === 'batch processed')).toMatchObject({
      service: 'payments-team',
      function_request_id: 'test-request',
      cold_start: true,
    });
  });
});
