/**
 * The Postgres flags of every operator command, and whether a stack declared a Postgres inbox: apart from
 * postgres-target.ts so a command on a DynamoDB inbox (or `--help`) never loads the `pg` driver.
 */
import { POSTGRES_SETTINGS } from '../lambdas/postgres/postgres-settings.js';
import type { PostgresStackOutputs } from '../lambdas/postgres/stack-outputs.js';

export const POSTGRES_FLAGS = {
  postgres: { type: 'string' },
  schema: { type: 'string' },
} as const;

export const DEFAULT_SCHEMA = String(POSTGRES_SETTINGS.schema.default);

export const POSTGRES_HELP = `  --postgres URL    a Postgres inbox (msk-inbox/postgres): postgres://user:password@host:5432/database
                    (sslmode=... in the URL for TLS); instead of --table
  --schema NAME     the schema of its tables (default: the stack's PostgresSchema output, else ${DEFAULT_SCHEMA})`;

/** Whether the stack declared a Postgres inbox. */
export function stackHasPostgres(outputs: PostgresStackOutputs): boolean {
  return Object.keys(outputs).length > 0;
}
