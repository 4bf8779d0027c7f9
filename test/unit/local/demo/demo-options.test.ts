import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DEMO_OPTIONS,
  DemoUsageError,
  demoHelp,
  parseDemoArgs,
} from '../../../../local/demo/demo-options.js';

describe('parseDemoArgs', () => {
  it('gives the defaults when no flag is passed', () => {
    expect(parseDemoArgs([])).toEqual({ help: false, options: DEFAULT_DEMO_OPTIONS });
  });

  it('reads sizes, rates, switches and lists when they are passed', () => {
    const parsed = parseDemoArgs([
      '--events=300',
      '--crash-rate',
      '0.2',
      '--bisect',
      '--source',
      'kafka',
      '--brokers',
      'a:9092,b:9092',
    ]);
    expect(parsed).toEqual({
      help: false,
      options: {
        ...DEFAULT_DEMO_OPTIONS,
        events: 300,
        crashRate: 0.2,
        bisect: true,
        source: 'kafka',
        kafkaBrokers: ['a:9092', 'b:9092'],
      },
    });
  });

  it('names every bad value at once when several are wrong', () => {
    let message = '';
    try {
      parseDemoArgs(['--crash-rate', '2', '--batch-size', '20000', '--source', 'sqs']);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      expect.stringMatching(/^--source sqs/),
      expect.stringMatching(/^--crash-rate 2/),
      expect.stringMatching(/^--batch-size 20000/),
    ]);
  });

  it('goes through the Kafka broker by default and refuses brokers with the in-memory log', () => {
    expect(DEFAULT_DEMO_OPTIONS.source).toBe('kafka');
    expect(() => parseDemoArgs(['--source', 'memory', '--brokers', 'a:9092'])).toThrow(
      /cannot go with --source memory/,
    );
  });

  it('rejects an unknown flag with a usage error', () => {
    expect(() => parseDemoArgs(['--nope'])).toThrow(DemoUsageError);
  });

  it('asks for help when given --help, and the help lists every flag', () => {
    expect(parseDemoArgs(['--help'])).toEqual({ help: true });
    for (const flag of [
      '--events',
      '--partitions',
      '--crash-rate',
      '--duplicate-rate',
      '--poison-rate',
      '--seed',
    ]) {
      expect(demoHelp()).toContain(flag);
    }
  });
});
