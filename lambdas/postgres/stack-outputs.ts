/**
 * The stack outputs that say where a Postgres consumer's inbox is, named once: the CDK app declares them
 * (lib/), and `msk-inbox --stack NAME` reads them (operator/postgres-target.ts), as it reads InboxTableName
 * for a DynamoDB inbox (docs/operate.md#postgres). Each output fills in the connection setting of
 * POSTGRES_SETTINGS with its field's name, so the operator connects as the consumer does.
 */
import type { PostgresSettingName } from './postgres-settings.js';

export const POSTGRES_STACK_OUTPUT_KEYS = {
  host: 'PostgresHost',
  port: 'PostgresPort',
  database: 'PostgresDatabase',
  user: 'PostgresUser',
  auth: 'PostgresAuth',
  secretArn: 'PostgresSecretArn',
  schema: 'PostgresSchema',
  tls: 'PostgresTls',
} as const satisfies Partial<Record<PostgresSettingName, string>>;

export type PostgresStackOutputs = {
  readonly [K in keyof typeof POSTGRES_STACK_OUTPUT_KEYS]?: string;
};
