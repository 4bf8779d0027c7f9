import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ConsumerLogger, JsonLogger } from '../../../../lambdas/core/telemetry/json-logger.js';
import { capturedWrites } from '../../../support/captured-writes.js';
import { lambdaContext, ManualClock } from '../../../support/clocks.js';

const saved = { ...process.env };

beforeEach(() => {
  // As in Lambda: an on-demand environment (so the first invocation is a cold start), a trace header.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
  delete process.env.POWERTOOLS_DEV;
  delete process.env.AWS_LAMBDA_LOG_LEVEL;
});

afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

/** Each line `use` makes a logger write, with its stream; the time of writing is the one field set aside. */
function writtenBy(logger: ConsumerLogger, use: (logger: ConsumerLogger) => void) {
  const output = capturedWrites();
  use(logger);
  vi.restoreAllMocks();
  const lines = (stream: string, text: string) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => ({ stream, ...JSON.parse(line), timestamp: 'set aside' }));
  return [...lines('stdout', output.stdout()), ...lines('stderr', output.stderr())];
}

const ours = (env: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'INFO' }) =>
  new JsonLogger({ serviceName: 'orders', env: { ...process.env, ...env } });
const powertools = (env: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'INFO' }) => {
  Object.assign(process.env, env);
  return new Logger({ serviceName: 'orders' });
};

/** One error for both loggers, so that their stacks are the same. */
const failure = Object.assign(
  new Error('the envelope is no Kafka event', { cause: new TypeError('socket hang up') }),
  { code: 'E_ENVELOPE' },
);

/** What the consumer logs: a line before any invocation, then two invocations' lines and a failure. */
function consumerLines(logger: ConsumerLogger): void {
  const clock = new ManualClock();
  logger.info('expired rows deleted', { deleted: 3, more: false });
  logger.addContext?.(lambdaContext(clock));
  logger.warn('record quarantined', { coordinates: 'orders-0@1', reason: 'invalid-event', offset: 1 });
  logger.info('batch processed', {
    records: 2,
    counts: { processed: 1, quarantined: 1 },
    latency: undefined,
  });
  logger.addContext?.(lambdaContext(clock));
  logger.error('batch failed as a whole', failure);
}

describe('JsonLogger', () => {
  it('writes the lines Powertools Logger writes: fields, context, trace, attributes, errors, streams', () => {
    const lines = writtenBy(ours(), consumerLines);

    // Powertools adds the error's `location` (file:line from its stack): the one field ours leaves out.
    const powertoolsLines = writtenBy(powertools(), consumerLines).map((line) => {
      if (!line.error) return line;
      const {
        location: _,
        cause: { location: __, ...cause },
        ...error
      } = line.error;
      return { ...line, error: { ...error, cause } };
    });
    expect(lines).toEqual(powertoolsLines);
    expect(lines.map((line) => [line.stream, line.message, line.cold_start])).toEqual([
      ['stdout', 'expired rows deleted', undefined],
      ['stdout', 'batch processed', true],
      ['stderr', 'record quarantined', true],
      ['stderr', 'batch failed as a whole', false],
    ]);
    expect(lines[1]).toMatchObject({
      level: 'INFO',
      service: 'orders',
      function_name: 'order-consumer',
      function_request_id: 'test-request',
      function_memory_size: '1024',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      counts: { processed: 1, quarantined: 1 },
    });
    expect(lines[3]?.error).toMatchObject({
      name: 'Error',
      message: 'the envelope is no Kafka event',
      stack: expect.stringContaining('json-logger.test.ts'),
      code: 'E_ENVELOPE',
      cause: { name: 'TypeError', message: 'socket hang up' },
    });
  });

  it('writes the levels Powertools writes, Lambda log level first, then POWERTOOLS_LOG_LEVEL, else INFO', () => {
    const everyLevel = (logger: ConsumerLogger) => {
      logger.info('info');
      logger.warn('warn');
      logger.error('error');
    };
    const cases: Record<string, string>[] = [
      { POWERTOOLS_LOG_LEVEL: 'SILENT' },
      { POWERTOOLS_LOG_LEVEL: 'WARN' },
      { POWERTOOLS_LOG_LEVEL: '' },
      { POWERTOOLS_LOG_LEVEL: 'DEBUG' },
      { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'ERROR' },
      { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'FATAL' },
    ];
    const levels = (lines: { message: string }[]) =>
      lines.map((line) => line.message).filter((message) => !message.startsWith('Current log level'));

    const written = cases.map((env) => levels(writtenBy(ours(env), everyLevel)));

    expect(written).toEqual(cases.map((env) => levels(writtenBy(powertools(env), everyLevel))));
    expect(written).toEqual([
      [],
      ['warn', 'error'],
      ['info', 'warn', 'error'],
      ['info', 'warn', 'error'],
      ['error'],
      [],
    ]);
  });

  it('writes a bigint as text and leaves out a cycle rather than throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'node' };
    cyclic.self = cyclic;

    const [line] = writtenBy(ours(), (logger) => logger.info('odd values', { big: 2n ** 64n, cyclic }));

    expect(line).toMatchObject({ big: '18446744073709551616', cyclic: { name: 'node' } });
    expect(line?.cyclic).not.toHaveProperty('self');
  });

  it("keeps the line's own fields from an attribute of the same name", () => {
    const [line] = writtenBy(ours(), (logger) =>
      logger.info('batch processed', { message: 'x', level: 'y', n: 1 }),
    );

    expect(line).toMatchObject({ message: 'batch processed', level: 'INFO', n: 1 });
  });
});
