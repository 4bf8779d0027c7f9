/**
 * How a Postgres consumer reaches its database, described once: each setting's environment variable,
 * default and meaning. `postgresInbox()` reads them at cold start (options in code go over them); the
 * KafkaConsumer construct sets them from its `postgres` prop (lib/), and the README's table is written
 * from this one. Passwords never travel in a variable: IAM tokens or a Secrets Manager secret
 * (docs/postgres.md#connections).
 */
import { ConfigError } from '../core/errors.js';
import { readSettingsTable, type SettingDefinition, type SettingValue } from '../core/settings.js';

/** Every connection setting of the Postgres store: variable, kind, default, meaning. */
export const POSTGRES_SETTINGS = {
  host: {
    env: 'POSTGRES_HOST',
    kind: 'text',
    meaning: 'the RDS Proxy (or cluster) endpoint the function connects to',
  },
  port: { env: 'POSTGRES_PORT', kind: 'integer', default: 5432, min: 1, max: 65_535, meaning: 'its port' },
  database: { env: 'POSTGRES_DATABASE', kind: 'text', meaning: 'the database holding the business tables' },
  user: {
    env: 'POSTGRES_USER',
    kind: 'text',
    meaning: 'the database user (with `iam`, the user `rds-db:connect` is granted for)',
  },
  auth: {
    env: 'POSTGRES_AUTH',
    kind: 'choice',
    default: 'iam',
    choices: ['iam', 'secret', 'url'],
    meaning:
      '`iam`: a token from `@aws-sdk/rds-signer` per connection; `secret`: the user and password of the Secrets Manager secret `POSTGRES_SECRET_ARN`; `url`: everything from `POSTGRES_URL` (running it here)',
  },
  secretArn: {
    env: 'POSTGRES_SECRET_ARN',
    kind: 'text',
    meaning: 'with `secret`: a secret in RDS\u2019s JSON shape (`username`, `password`)',
  },
  url: {
    env: 'POSTGRES_URL',
    kind: 'text',
    meaning:
      'with `url`: a `postgres://` connection string (local databases; no TLS unless it says `sslmode`)',
  },
  tls: {
    env: 'POSTGRES_TLS',
    kind: 'choice',
    default: 'verify-full',
    choices: ['verify-full', 'require', 'disable'],
    meaning:
      "`verify-full` checks the server's certificate and name against the trusted CAs (Lambda's RDS bundle through `NODE_EXTRA_CA_CERTS`)",
  },
  schema: {
    env: 'POSTGRES_SCHEMA',
    kind: 'text',
    default: 'msk_inbox',
    pattern: /^[a-z_][a-z0-9_]{0,62}$/,
    patternHint: 'must be a lower-case SQL identifier: letters, digits and underscores, 63 at most',
    meaning: 'the schema of the inbox and quarantine tables (`msk-inbox postgres migrate` creates them)',
  },
  poolMax: {
    env: 'POSTGRES_POOL_MAX',
    kind: 'integer',
    default: 0,
    min: 0,
    max: 100,
    meaning:
      'connections per execution environment; `0`: one per partition processed at once (`PARTITION_CONCURRENCY`)',
  },
  idleTimeoutMs: {
    env: 'POSTGRES_IDLE_TIMEOUT_MS',
    kind: 'integer',
    default: 60_000,
    min: 1,
    max: 3_600_000,
    meaning:
      'an idle pooled connection is closed after this (RDS Proxy multiplexes its own; a frozen environment keeps its connections until it thaws)',
  },
  statementTimeoutMs: {
    env: 'POSTGRES_STATEMENT_TIMEOUT_MS',
    kind: 'integer',
    default: 10_000,
    min: 100,
    max: 900_000,
    meaning: 'a statement running longer is cancelled (SQLSTATE 57014): the record is retried, never stuck',
  },
  outboxNotify: {
    env: 'POSTGRES_OUTBOX_NOTIFY',
    kind: 'choice',
    default: 'on',
    choices: ['on', 'off'],
    meaning:
      '`on`: a transaction whose records emitted sends NOTIFY, so a listening relay publishes at once; `off`: none (Postgres serializes the commits of notifying transactions; the relay then finds events by its poll, docs/postgres.md#the-relay)',
  },
} as const satisfies Record<string, SettingDefinition>;

/** A connection setting's name. */
export type PostgresSettingName = keyof typeof POSTGRES_SETTINGS;

/** Every connection setting, resolved; `postgresInbox({ settings })` takes any of them. */
export type PostgresSettings = {
  readonly [K in PostgresSettingName]: SettingValue<(typeof POSTGRES_SETTINGS)[K]>;
};

/** What each kind of authentication needs besides the defaults. */
const REQUIRED_BY_AUTH: Readonly<Record<PostgresSettings['auth'], readonly PostgresSettingName[]>> = {
  iam: ['host', 'database', 'user'],
  secret: ['host', 'database', 'secretArn'],
  url: ['url'],
};

/** What the settings are read for. */
export interface SettingsUse {
  /**
   * The consumer gave a pool of its own (`postgresInbox({ pool })`): no connection is opened from the
   * settings, so what an authentication needs to connect is not required (the values given are still
   * checked).
   */
  readonly ownPool?: boolean;
}

/**
 * The settings given in code over the environment's, each checked against its definition, and those its
 * kind of authentication needs required (unless the consumer connects with a pool of its own). One
 * ConfigError names every problem.
 */
export function readPostgresSettings(
  given: Partial<PostgresSettings>,
  env: Readonly<Record<string, string | undefined>>,
  use: SettingsUse = {},
): PostgresSettings {
  const problems: string[] = [];
  const settings: PostgresSettings = readSettingsTable(POSTGRES_SETTINGS, given, env, problems);
  for (const name of use.ownPool ? [] : REQUIRED_BY_AUTH[settings.auth]) {
    if (settings[name] === '') {
      problems.push(
        `${POSTGRES_SETTINGS[name].env} is required with ${POSTGRES_SETTINGS.auth.env}=${settings.auth}`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}
