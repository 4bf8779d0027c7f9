import { connect } from 'node:net';
import { Kafka, logLevel as KafkaLogLevel } from 'kafkajs';
import { UserError } from '../../operator/cli/user-error.js';

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
const BROKER_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(\d{1,5})$/;

/** Splits a `--brokers host:port,host:port` value, rejecting entries without a port from 1 to 65535. */
export function parseBrokerList(value: string): string[] {
  const brokers = value
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
  const invalid = brokers.filter((broker) => {
    const port = Number(BROKER_ADDRESS.exec(broker)?.[2] ?? 0);
    return port < 1 || port > 65_535;
  });
  if (brokers.length === 0 || invalid.length > 0) {
    throw new UserError(
      `--brokers expects host:port[,host:port...] with ports from 1 to 65535 (e.g. --brokers 127.0.0.1:9092), got "${value}"`,
    );
  }
  return brokers;
}

/** Whether any of these `host:port` addresses accepts a TCP connection within the timeout. */
export async function anyBrokerAccepts(brokers: readonly string[], timeoutMs = 2000): Promise<boolean> {
  const attempts = brokers.map((broker) => {
    const separator = broker.lastIndexOf(':');
    const host = broker.slice(0, separator).replace(/^\[(.*)\]$/, '$1');
    return accepts(host, Number(broker.slice(separator + 1)), timeoutMs);
  });
  return (await Promise.all(attempts)).some(Boolean);
}

function accepts(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
