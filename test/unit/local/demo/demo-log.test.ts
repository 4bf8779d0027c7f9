import { describe, expect, it } from 'vitest';
import { chooseDemoSource } from '../../../../local/demo/demo-log.js';
import { DEFAULT_DEMO_OPTIONS } from '../../../../local/demo/demo-options.js';
import { KcatNotInstalledError } from '../../../../local/kafka/errors.js';

const defaults = DEFAULT_DEMO_OPTIONS;

describe('chooseDemoSource', () => {
  it('goes through the Kafka broker by default when kcat is installed', () => {
    expect(chooseDemoSource(defaults, true)).toEqual({ kind: 'kafka' });
  });

  it('falls back to the in-memory log and says how to get the broker when kcat is missing', () => {
    const choice = chooseDemoSource(defaults, false);
    expect(choice.kind).toBe('memory');
    expect(choice.note).toMatch(/kcat not found/);
    expect(choice.note).toContain('apt-get install kcat');
    expect(choice.note).toContain('brew install kcat');
  });

  it('refuses --source kafka with a KcatNotInstalledError when kcat is missing', () => {
    expect(() => chooseDemoSource({ ...defaults, source: 'kafka' }, false)).toThrow(KcatNotInstalledError);
  });

  it('needs no kcat when --brokers names an existing cluster', () => {
    expect(chooseDemoSource({ ...defaults, kafkaBrokers: ['b:9092'] }, false)).toEqual({ kind: 'kafka' });
    expect(
      chooseDemoSource({ ...defaults, source: 'kafka', kafkaBrokers: ['b:9092'], partitions: 8 }, false),
    ).toEqual({
      kind: 'kafka',
    });
  });

  it('keeps --source memory whether or not kcat is installed', () => {
    expect(chooseDemoSource({ ...defaults, source: 'memory' }, true)).toEqual({ kind: 'memory' });
    expect(chooseDemoSource({ ...defaults, source: 'memory', partitions: 8 }, false)).toEqual({
      kind: 'memory',
    });
  });

  it('refuses a partition count the local broker cannot make, naming the fix, when the broker would be used', () => {
    expect(() => chooseDemoSource({ ...defaults, partitions: 8 }, true)).toThrow(
      /makes every topic with 4 partitions: drop --partitions, set it to 4, or add --source memory/,
    );
    expect(chooseDemoSource({ ...defaults, partitions: 8 }, false).kind).toBe('memory');
  });
});
