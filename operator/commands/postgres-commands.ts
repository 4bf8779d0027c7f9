/**
 * `msk-inbox postgres migrate` and `msk-inbox postgres delete-expired`: a Postgres inbox's tables made or
 * brought up to date (lambdas/postgres/schema.ts, the versioned migrations), and its expired dedup rows
 * deleted in bounded batches (the store's own deleteExpiredRows: a LIMITed DELETE at a time).
 */
import { CONSUMER_NAME_PATTERN, INBOX_ATTRIBUTES } from '../../lambdas/core/inbox-rows.js';
import { EXPIRED_ROWS_PER_DELETE, PostgresInboxStore } from '../../lambdas/postgres/postgres-inbox-store.js';
import { MIGRATIONS, migrate, migrationSql } from '../../lambdas/postgres/schema.js';
import { POSTGRES_STACK_OUTPUT_KEYS } from '../../lambdas/postgres/stack-outputs.js';
import { parseCommandLine, positiveIntegerFlag } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import { stringFlag } from '../operator-target.js';
import { DEFAULT_SCHEMA, POSTGRES_FLAGS, POSTGRES_HELP, stackHasPostgres } from '../postgres-flags.js';
import {
  type PostgresConnection,
  postgresAdvice,
  postgresFromStack,
  postgresFromUrl,
} from '../postgres-target.js';
import { readStackOutputs } from '../stack-outputs.js';
import type { OperatorIo } from './operator-io.js';

const WHERE_FLAGS = {
  ...POSTGRES_FLAGS,
  stack: { type: 'string' },
  region: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const WHERE_HELP = `Where the database is (one of):
${POSTGRES_HELP}
  --stack NAME      the deployed stack's Postgres outputs (${Object.values(POSTGRES_STACK_OUTPUT_KEYS).join(', ')}),
                    connected as the consumer connects (an IAM token or the secret; --region, --profile)
  --json            machine-readable output on stdout`;

export const MIGRATE_HELP = `Usage: msk-inbox postgres migrate (--postgres URL | --stack NAME | --print) [--schema NAME]

Creates the inbox's tables in the schema, or brings them up to date: the migrations the database lacks,
in one transaction, under an advisory lock (two runs at once apply each migration once). Running it again
changes nothing. The consumer and \`msk-inbox\` need the same version: run it before deploying a new one.

  --print           print the SQL of every migration for your own migration tool, and connect nothing

${WHERE_HELP}`;

export const DELETE_EXPIRED_HELP = `Usage: msk-inbox postgres delete-expired [--max N] [--consumer NAME] (--postgres URL | --stack NAME)

Deletes the consumer's dedup rows whose dedup window has ended (expires_at passed), ${EXPIRED_ROWS_PER_DELETE} per statement
so no lock is held long, --max in all. The consumer treats an expired row as absent already; this only
frees the space (its schedule does the same, docs/postgres.md).

  --max N           delete N rows at most (default 100000); run again when it says more remain
  --consumer NAME   the consumer's name (default: the stack's ConsumerName output, else $CONSUMER_NAME)

${WHERE_HELP}`;

type Values = Readonly<Record<string, string | boolean | undefined>>;

/**
 * The database from `--postgres` (with `--schema`), else from the stack's Postgres outputs; and the
 * consumer the flag, the stack's ConsumerName output or CONSUMER_NAME names, if any.
 */
async function postgresTarget(
  values: Values,
): Promise<{ readonly connection: PostgresConnection; readonly consumer: string | undefined }> {
  const url = stringFlag(values.postgres);
  const schema = stringFlag(values.schema);
  const stackName = stringFlag(values.stack);
  const flagged = stringFlag(values.consumer) ?? process.env.CONSUMER_NAME;
  if (url !== undefined) return { connection: postgresFromUrl(url, schema), consumer: flagged };
  if (stackName === undefined) {
    throw new UserError(
      'which database? pass --postgres URL (postgres://user:password@host:5432/database) or --stack NAME',
    );
  }
  const stack = await readStackOutputs(stackName, {
    region: stringFlag(values.region),
    profile: stringFlag(values.profile),
  });
  if (!stackHasPostgres(stack.postgres)) {
    throw new UserError(
      `stack ${stackName} has no Postgres outputs (${POSTGRES_STACK_OUTPUT_KEYS.host}, ...): pass --postgres URL`,
    );
  }
  const consumer = stringFlag(values.consumer) ?? stack.consumerName ?? process.env.CONSUMER_NAME;
  return {
    connection: postgresFromStack(stackName, stack.postgres, schema, consumer ?? 'operator'),
    consumer,
  };
}

/** Runs `work` on one connection, its failures advised, and ends the connections. */
async function withPostgres<T>(
  connection: PostgresConnection,
  work: (connection: PostgresConnection) => Promise<T>,
): Promise<T> {
  try {
    return await work(connection);
  } catch (error) {
    throw postgresAdvice(connection, error) ?? error;
  } finally {
    await connection.connections.end().catch(() => undefined);
  }
}

export async function postgresMigrate(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...WHERE_FLAGS, print: { type: 'boolean' } },
    'msk-inbox postgres migrate --help',
  );
  if (values.help) {
    io.print(MIGRATE_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UserError(`migrate takes no arguments (got ${positionals[0]})`);
  if (values.print === true) {
    if (stringFlag(values.postgres) !== undefined || stringFlag(values.stack) !== undefined) {
      throw new UserError('--print connects nothing: leave out --postgres and --stack');
    }
    io.print(migrationSql(stringFlag(values.schema) ?? DEFAULT_SCHEMA));
    return 0;
  }
  const { connection } = await postgresTarget(values);
  const applied = await withPostgres(connection, async ({ connections, schema }) => {
    const client = await connections.connect();
    try {
      const versions = await migrate(client, schema);
      client.release();
      return versions;
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  });
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  const at = `schema ${connection.schema} at ${connection.where}`;
  if (values.json) {
    io.print(JSON.stringify({ schema: connection.schema, applied, version: latest }, null, 2));
  } else {
    io.print(
      applied.length === 0
        ? `${at} is up to date (migration ${latest}): nothing applied`
        : `${at}: applied migration ${applied.join(', ')} (now at ${latest})`,
    );
  }
  return 0;
}

const DEFAULT_MAX_ROWS = 100_000;

export async function postgresDeleteExpired(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...WHERE_FLAGS, consumer: { type: 'string' }, max: { type: 'string' } },
    'msk-inbox postgres delete-expired --help',
  );
  if (values.help) {
    io.print(DELETE_EXPIRED_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UserError(`delete-expired takes no arguments (got ${positionals[0]})`);
  const maxRows = positiveIntegerFlag('max', values.max as string | undefined, DEFAULT_MAX_ROWS);
  const { connection, consumer } = await postgresTarget(values);
  if (!consumer) {
    await connection.connections.end();
    throw new UserError(
      'which consumer? pass --consumer NAME (or set CONSUMER_NAME): rows are deleted per consumer',
    );
  }
  if (!CONSUMER_NAME_PATTERN.test(consumer)) {
    await connection.connections.end();
    throw new UserError(`--consumer ${consumer} is not a consumer name (1-64 of A-Z a-z 0-9 _ . -)`);
  }
  const result = await withPostgres(connection, ({ connections, schema }) =>
    new PostgresInboxStore({
      pool: connections,
      schema,
      consumer,
      // Only deleteExpiredRows is used: it judges rows by their own expires_at, not by a window.
      ttlSeconds: 0,
      clock: { nowMs: io.nowMs },
    }).deleteExpiredRows(maxRows),
  );
  if (values.json) {
    io.print(JSON.stringify({ consumer, schema: connection.schema, ...result }, null, 2));
  } else {
    const more = result.more ? `; more remain (--max ${maxRows} reached): run it again` : '';
    io.print(
      `deleted ${result.deleted} expired dedup row(s) of consumer ${consumer} (${INBOX_ATTRIBUTES.expiresAt} passed) in schema ${connection.schema}${more}`,
    );
  }
  return 0;
}
