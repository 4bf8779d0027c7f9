import { Kafka, logLevel as KafkaLogLevel } from 'kafkajs';
import { LocalKafkaError } from './errors.js';

export interface KafkaClientOptions {
  readonly brokers: readonly string[];
  /** @default 'msk-inbox-local' */
  readonly clientId?: string;
  /**
   * kafkajs logs every retried connection and rebalance at ERROR or WARN; here failures surface as thrown
   * errors and consumer crash events instead, so the default is silence.
   * @default logLevel.NOTHING
   */
  readonly logLevel?: KafkaLogLevel;
}

/** A kafkajs client for the local broker or an existing cluster, quiet unless asked. */
export function createKafkaClient(options: KafkaClientOptions): Kafka {
  const level = options.logLevel ?? KafkaLogLevel.NOTHING;
  return new Kafka({
    clientId: options.clientId ?? 'msk-inbox-local',
    brokers: [...options.brokers],
    logLevel: level,
    logCreator: () => (entry) => {
      if (entry.level > level) return;
      const { message, ...rest } = entry.log;
      process.stderr.write(
        `kafkajs ${KafkaLogLevel[entry.level]} [${entry.namespace}] ${message} ${JSON.stringify(rest)}\n`,
      );
    },
  });
}

/** `host:port` or `[ipv6]:port`. */
const BROKER_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d+$/;

/** Splits a `--brokers host:port,host:port` value, rejecting entries without a port. */
export function parseBrokerList(value: string): string[] {
  const brokers = value
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
  const invalid = brokers.filter((broker) => !BROKER_ADDRESS.test(broker));
  if (brokers.length === 0 || invalid.length > 0) {
    throw new LocalKafkaError(`--brokers expects host:port[,host:port...], got "${value}"`);
  }
  return brokers;
}
