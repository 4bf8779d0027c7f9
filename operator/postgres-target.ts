/**
 * Where a Postgres inbox is, for the operator's commands (docs/operate.md#postgres): `--postgres URL`
 * (with `--schema`), else the stack's Postgres outputs (POSTGRES_STACK_OUTPUT_KEYS, `--stack`), read into
 * the consumer's own settings (POSTGRES_SETTINGS) so the tool connects as the consumer does: an IAM token
 * or the Secrets Manager secret, over TLS. A person's mistake (a bad URL, nothing answering, a refused
 * password, the tables missing) is one line with its fix.
 */
import pg from 'pg';
import { ConfigError } from '../lambdas/core/errors.js';
import { awsCredentials } from '../lambdas/postgres/aws-credentials.js';
import { type ConnectionSource, connectionPool } from '../lambdas/postgres/connection.js';
import { POSTGRES_SETTINGS, readPostgresSettings } from '../lambdas/postgres/postgres-settings.js';
import { checkedSchema } from '../lambdas/postgres/schema.js';
import { sqlStateOf } from '../lambdas/postgres/sqlstate.js';
import { POSTGRES_STACK_OUTPUT_KEYS, type PostgresStackOutputs } from '../lambdas/postgres/stack-outputs.js';
import { UserError } from './cli/user-error.js';
import { DEFAULT_SCHEMA } from './postgres-flags.js';
import { redacted } from './redacted-url.js';

/** A connection to a Postgres inbox, and what the messages and a local consumer need of it. */
export interface PostgresConnection {
  readonly connections: ConnectionSource;
  readonly schema: string;
  /** Where it is, without a password: `db.example:5432/app`. */
  readonly where: string;
  /** The POSTGRES_* variables a consumer run here (`--handler`) reaches the same database with. */
  readonly handlerVariables: Readonly<Record<string, string>>;
  /** How `msk-inbox postgres migrate` is told to reach it, for the advice. */
  readonly migrateFlags: string;
}

/** The driver gives up on a connection not made within this: a firewall that drops packets is one line. */
const CONNECT_TIMEOUT_MS = 10_000;

/** `--postgres URL` and `--schema`: a URL is checked before anything connects. */
export function postgresFromUrl(url: string, schemaFlag: string | undefined): PostgresConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid:');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new UserError(
      `--postgres ${redacted(url)} is not a postgres:// URL: e.g. postgres://user:password@127.0.0.1:5432/app`,
    );
  }
  const schema = schemaOf(schemaFlag ?? DEFAULT_SCHEMA);
  const pool = new pg.Pool({
    connectionString: url,
    // One at a time: the tool's statements run one after another, and a replay's consumer (--handler)
    // connects beside it.
    max: 1,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'msk-inbox operator',
  });
  // An idle connection the server closes must not crash the tool: the pool has dropped it already.
  pool.on('error', () => undefined);
  const where = `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  return {
    connections: pool,
    schema,
    where,
    handlerVariables: {
      [POSTGRES_SETTINGS.auth.env]: 'url',
      [POSTGRES_SETTINGS.url.env]: url,
      [POSTGRES_SETTINGS.schema.env]: schema,
    },
    migrateFlags: `--postgres ${redacted(url)} --schema ${schema}`,
  };
}

/**
 * The stack's Postgres outputs as the consumer's settings, connected as the consumer connects (an IAM
 * token, or the secret's password): the one function that reads them.
 */
export function postgresFromStack(
  stackName: string,
  outputs: PostgresStackOutputs,
  schemaFlag: string | undefined,
  consumer: string,
): PostgresConnection {
  const given: Record<string, string> = { ...outputs };
  if (schemaFlag !== undefined) given.schema = schemaOf(schemaFlag);
  let settings: ReturnType<typeof readPostgresSettings>;
  try {
    settings = readPostgresSettings(given, {});
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const keys = Object.values(POSTGRES_STACK_OUTPUT_KEYS).join(', ');
    throw new UserError(
      `stack ${stackName}'s Postgres outputs are incomplete (${error.problems.join('; ')}): it needs ${keys} as the consumer's settings do, or pass --postgres URL`,
      { cause: error },
    );
  }
  const variables: Record<string, string> = {};
  for (const [name, definition] of Object.entries(POSTGRES_SETTINGS)) {
    const value = settings[name as keyof typeof settings];
    if (value !== '' && name in POSTGRES_STACK_OUTPUT_KEYS) variables[definition.env] = String(value);
  }
  variables[POSTGRES_SETTINGS.schema.env] = settings.schema;
  return {
    connections: connectionPool(
      { ...settings, poolMax: 1 },
      { consumer, concurrency: 1, credentials: awsCredentials(settings) },
    ),
    schema: settings.schema,
    where: `${settings.host}:${settings.port}/${settings.database}`,
    handlerVariables: variables,
    migrateFlags: `--stack ${stackName}`,
  };
}

function schemaOf(schema: string): string {
  try {
    return checkedSchema(schema);
  } catch (error) {
    throw new UserError(`--schema ${(error as Error).message.replace(/^schema /, '')}`, { cause: error });
  }
}

/** The failures a person can fix, as one line naming the fix; else undefined (a bug, a server fault). */
export function postgresAdvice(connection: PostgresConnection, error: unknown): UserError | undefined {
  const state = sqlStateOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const where = connection.where;
  const options = { cause: error };
  const migrate = `msk-inbox postgres migrate ${connection.migrateFlags}`;
  // 42P01 undefined_table, 3F000 invalid_schema_name, 42703 undefined_column (tables of an older version).
  if (state === '42P01' || state === '3F000' || state === '42703') {
    return new UserError(
      `the inbox tables are missing or out of date in schema ${connection.schema} at ${where} (${message}): run \`${migrate}\``,
      options,
    );
  }
  if (state === '3D000') {
    return new UserError(`${message} at ${where}: check the database in --postgres`, options);
  }
  if (state?.startsWith('28')) {
    return new UserError(
      `the database at ${where} refused the login (${message}): check the user and password`,
      options,
    );
  }
  if (state === '42501') {
    return new UserError(
      `not allowed: ${message}: grant the user what this command needs in schema ${connection.schema} (docs/operate.md#postgres)`,
      options,
    );
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new UserError(
      `nothing answers at ${where} (${String(code)}): is the database running? check --postgres`,
      options,
    );
  }
  if (/timeout expired|Connection terminated due to connection timeout/i.test(message)) {
    return new UserError(
      `no answer from ${where} within ${CONNECT_TIMEOUT_MS / 1000} s: check the host, the port and that this machine may reach it`,
      options,
    );
  }
  if (state === undefined && /SSL|certificate/i.test(message)) {
    return new UserError(`TLS to ${where} failed (${message}): check sslmode in --postgres`, options);
  }
  return undefined;
}
