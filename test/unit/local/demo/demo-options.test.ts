import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DEMO_OPTIONS,
  DemoUsageError,
  demoHelp,
  parseDemoArgs,
} from '../../../../local/demo/demo-options.js';
import { UserError } from '../../../../operator/cli/user-error.js';

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

  it('names every bad value at once, on one line, when several are wrong', () => {
    let message = '';
    try {
      parseDemoArgs(['--crash-rate', '2', '--batch-size', '20000', '--source', 'sqs']);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('\n');
    expect(message.split('; ')).toEqual([
      expect.stringMatching(/^--source sqs/),
      expect.stringMatching(/^--crash-rate 2/),
      expect.stringMatching(/^--batch-size 20000/),
    ]);
    expect(message).toMatch(/\(npm start -- --help lists every flag\)$/);
    expect(() => parseDemoArgs(['--events', 'x'])).toThrow(DemoUsageError);
  });

  it('leaves the source to the machine by default and refuses brokers with the in-memory log', () => {
    expect(DEFAULT_DEMO_OPTIONS.source).toBeUndefined();
    expect(() => parseDemoArgs(['--source', 'memory', '--brokers', 'a:9092'])).toThrow(
      /cannot go with --source memory/,
    );
  });

  it('rejects a --brokers value without a usable port, naming the expected form', () => {
    for (const value of ['a', 'a:', 'a:0', 'a:70000', 'a:9092,b']) {
      expect(() => parseDemoArgs(['--brokers', value])).toThrow(/--brokers expects host:port/);
    }
    expect(parseDemoArgs(['--brokers', ' a:9092 , [::1]:9093 '])).toMatchObject({
      options: { kafkaBrokers: ['a:9092', '[::1]:9093'] },
    });
  });

  it('describes the default source truthfully in --help', () => {
    expect(demoHelp()).toMatch(
      /--source memory\|kafka .*\(default: kafka where kcat is installed, else memory\)/,
    );
    expect(demoHelp()).toMatch(/Kafka-protocol broker .*hosted by kcat; without kcat,/);
  });

  it('rejects an unknown flag with a one-line usage error pointing at --help', () => {
    expect(() => parseDemoArgs(['--nope'])).toThrow(UserError);
    expect(() => parseDemoArgs(['--nope'])).toThrow(
      /^Unknown option '--nope' \(npm start -- --help lists every flag\)$/,
    );
  });

  it('keeps DynamoDB Local with --keep, which cannot go with a DynamoDB of your own', () => {
    expect(parseDemoArgs(['--keep'])).toEqual({
      help: false,
      options: { ...DEFAULT_DEMO_OPTIONS, keep: true },
    });
    expect(() => parseDemoArgs(['--keep', '--dynamodb-endpoint', 'http://127.0.0.1:8000'])).toThrow(
      /^--keep keeps the DynamoDB Local the demo starts: with --dynamodb-endpoint, yours stays anyway \(npm start/,
    );
  });

  it('produces Avro values with --format avro, JSON by default, and refuses another format', () => {
    expect(DEFAULT_DEMO_OPTIONS.format).toBe('json');
    expect(parseDemoArgs(['--format', 'avro'])).toEqual({
      help: false,
      options: { ...DEFAULT_DEMO_OPTIONS, format: 'avro' },
    });
    expect(() => parseDemoArgs(['--format', 'xml'])).toThrow(
      /^--format xml: expected json or avro \(npm start/,
    );
    expect(demoHelp()).toContain('--format json|avro');
  });

  it('takes --store redis, and refuses with it in one line the flags only DynamoDB has a use for', () => {
    expect(parseDemoArgs(['--store', 'redis'])).toEqual({
      help: false,
      options: { ...DEFAULT_DEMO_OPTIONS, store: 'redis' },
    });
    expect(() => parseDemoArgs(['--store', 'redis', '--format', 'avro'])).toThrow(
      /^--store redis runs a sample consumer, whose values are JSON: drop --format \(npm start/,
    );
    expect(() => parseDemoArgs(['--store', 'redis', '--keep'])).toThrow(
      /^--keep keeps DynamoDB Local for msk-inbox: with --store redis, drop --keep \(npm start/,
    );
    expect(() => parseDemoArgs(['--store', 'redis', '--pipeline'])).toThrow(
      /^--pipeline runs its own setup on DynamoDB Local: drop --store \(npm start/,
    );
    expect(() => parseDemoArgs(['--store', 'sqlite'])).toThrow(
      /^--store sqlite: expected one of dynamodb, postgres, redis \(npm start/,
    );
    expect(demoHelp()).toContain('--store dynamodb|postgres|redis');
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
