/** The relay's settings from the environment (lambdas/outbox-relay/relay-config.ts). */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { readRelayConfig } from '../../../lambdas/outbox-relay/relay-config.js';

const DEPLOYED = {
  OUTBOX_TABLE_NAME: 'orders-outbox',
  KAFKA_BOOTSTRAP_SERVERS:
    'b-1.demo.kafka.eu-west-1.amazonaws.com:9098, b-2.demo.kafka.eu-west-1.amazonaws.com:9098',
  AWS_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'Stack-OutboxRelay-1A2B',
};

describe('readRelayConfig', () => {
  it("reads a deployed relay's settings, IAM by default", () => {
    expect(readRelayConfig(DEPLOYED)).toEqual({
      outboxTableName: 'orders-outbox',
      brokers: ['b-1.demo.kafka.eu-west-1.amazonaws.com:9098', 'b-2.demo.kafka.eu-west-1.amazonaws.com:9098'],
      kafkaAuth: 'iam',
      region: 'eu-west-1',
      functionName: 'Stack-OutboxRelay-1A2B',
    });
  });

  it('takes a plaintext local broker without a region', () => {
    const config = readRelayConfig({
      OUTBOX_TABLE_NAME: 'outbox',
      KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9092',
      KAFKA_AUTH: 'none',
    });

    expect(config).toMatchObject({ brokers: ['127.0.0.1:9092'], kafkaAuth: 'none', region: undefined });
  });

  it('names every problem in one line of one ConfigError', () => {
    const read = () =>
      readRelayConfig({ KAFKA_BOOTSTRAP_SERVERS: 'broker-without-port,[::1]:9092', KAFKA_AUTH: 'sasl' });

    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      'Invalid configuration: OUTBOX_TABLE_NAME is required; KAFKA_BOOTSTRAP_SERVERS has entries that are not host:port: broker-without-port; KAFKA_AUTH must be one of iam, none, got "sasl"',
    );
  });

  it('needs brokers, and a region for IAM', () => {
    expect(() => readRelayConfig({ OUTBOX_TABLE_NAME: 'outbox', KAFKA_BOOTSTRAP_SERVERS: ' , ' })).toThrow(
      'Invalid configuration: KAFKA_BOOTSTRAP_SERVERS is required (host:port,host:port); AWS_REGION is required with KAFKA_AUTH=iam (Lambda sets it)',
    );
  });
});
