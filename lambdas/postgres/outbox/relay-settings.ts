/**
 * The Postgres outbox relay's settings (docs/postgres.md#the-relay), read once per container: the database
 * as the consumer reaches it (POSTGRES_SETTINGS), the brokers as the DynamoDB relay's (RELAY_SETTINGS), and
 * the three below, which say how often it looks for new events. The relay construct
 * (lib/postgres-outbox-relay.ts) writes them; every problem is named in one ConfigError.
 */
import { ConfigError } from '../../core/errors.js';
import { readSettingsTable, type SettingDefinition, type SettingValue } from '../../core/settings.js';
import { type Env, type KafkaTarget, readKafkaTarget } from '../../outbox-relay/relay-config.js';
import { type PostgresSettings, readPostgresSettings } from '../postgres-settings.js';

export const POSTGRES_RELAY_SETTINGS = {
  wake: {
    env: 'OUTBOX_WAKE',
    kind: 'choice',
    default: 'notify',
    choices: ['notify', 'poll'],
    meaning:
      '`notify`: the relay LISTENs on a connection of its own and claims as soon as an emitting transaction commits (through RDS Proxy, that connection is pinned); `poll`: it claims every poll interval only',
  },
  pollIntervalMs: {
    env: 'OUTBOX_POLL_INTERVAL_MS',
    kind: 'integer',
    default: 1_000,
    min: 50,
    max: 60_000,
    meaning:
      'the longest an idle relay waits before it claims again: the bound on an event\u2019s wait when a notification is missed, or with `poll`',
  },
  keysPerRound: {
    env: 'OUTBOX_KEYS_PER_ROUND',
    kind: 'integer',
    default: 50,
    min: 1,
    max: 1_000,
    meaning: 'keys one round claims (and holds until it commits); another relay takes the rest',
  },
} as const satisfies Record<string, SettingDefinition>;

export type PostgresRelaySettingName = keyof typeof POSTGRES_RELAY_SETTINGS;

export type PostgresRelaySettings = {
  readonly [K in PostgresRelaySettingName]: SettingValue<(typeof POSTGRES_RELAY_SETTINGS)[K]>;
};

export interface PostgresRelayConfig extends KafkaTarget {
  readonly postgres: PostgresSettings;
  readonly relay: PostgresRelaySettings;
}

export function readPostgresRelayConfig(env: Env): PostgresRelayConfig {
  const problems: string[] = [];
  let postgres: PostgresSettings | undefined;
  try {
    postgres = readPostgresSettings({}, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const kafka = readKafkaTarget(env, problems);
  const relay = readSettingsTable(POSTGRES_RELAY_SETTINGS, {}, env, problems);
  if (problems.length > 0 || postgres === undefined) throw new ConfigError(problems);
  return { ...kafka, postgres, relay };
}
