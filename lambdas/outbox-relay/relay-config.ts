/**
 * The relay's settings (relay-settings.ts), read from the environment once per container; every problem
 * is named in one ConfigError.
 */
import { ConfigError } from '../core/errors.js';
import type { KafkaAuth } from './kafka-publisher.js';
import { RELAY_SETTINGS } from './relay-settings.js';

export interface RelayConfig {
  readonly outboxTableName: string;
  readonly brokers: readonly string[];
  readonly kafkaAuth: KafkaAuth;
  /** Lambda's AWS_REGION: the IAM token's signing region. */
  readonly region: string | undefined;
  /** Lambda's AWS_LAMBDA_FUNCTION_NAME: the metrics' `service` dimension. */
  readonly functionName: string | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** `host:port`, or `[ipv6]:port`. */
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\],]+):(\d{1,5})$/;

export function readRelayConfig(env: Env): RelayConfig {
  const problems: string[] = [];
  const outboxTableName = env[RELAY_SETTINGS.outboxTableName.env]?.trim() ?? '';
  if (!outboxTableName) problems.push(`${RELAY_SETTINGS.outboxTableName.env} is required`);
  const kafka = readKafkaTarget(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { outboxTableName, ...kafka };
}

/** Where and how a relay produces, and who it is: the part of its settings every outbox store shares. */
export type KafkaTarget = Omit<RelayConfig, 'outboxTableName'>;

/** The Kafka settings, its problems added to `problems` (the caller throws them with its own). */
export function readKafkaTarget(env: Env, problems: string[]): KafkaTarget {
  const serversName = RELAY_SETTINGS.bootstrapServers.env;
  const servers = env[serversName]?.trim() ?? '';
  const brokers = servers
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
  if (brokers.length === 0) problems.push(`${serversName} is required (host:port,host:port)`);
  const invalid = brokers.filter((broker) => {
    const port = Number(BROKER.exec(broker)?.[2] ?? 0);
    return port < 1 || port > 65_535;
  });
  if (invalid.length > 0)
    problems.push(`${serversName} has entries that are not host:port: ${invalid.join(', ')}`);

  const { env: authName, default: authDefault, choices } = RELAY_SETTINGS.kafkaAuth;
  const auth = env[authName]?.trim() || authDefault;
  if (!(choices as readonly string[]).includes(auth)) {
    problems.push(`${authName} must be one of ${choices.join(', ')}, got ${JSON.stringify(auth)}`);
  }
  const region = env.AWS_REGION?.trim() || undefined;
  if (auth === 'iam' && !region)
    problems.push(`AWS_REGION is required with ${authName}=iam (Lambda sets it)`);
  return {
    brokers,
    kafkaAuth: auth as KafkaAuth,
    region,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME?.trim() || undefined,
  };
}
