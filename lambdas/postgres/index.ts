/**
 * @packageDocumentation
 * MSK Inbox on Postgres (`msk-inbox/postgres`): the inbox row in the business database's own transaction.
 *
 * ```ts
 * export const handler = createInboxConsumer({
 *   store: postgresInbox(),
 *   effect: ({ event }) => ({
 *     kind: 'sql',
 *     run: async (sql) => {
 *       await sql.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [event.amount, event.account]);
 *     },
 *   }),
 * });
 * ```
 */
import type { Pool } from 'pg';
import { type InboxStoreChoice, storeChoice } from '../core/store-choice.js';
import { awsCredentials } from './aws-credentials.js';
import { type ConnectionSource, connectionPool } from './connection.js';
import { PostgresInboxStore } from './postgres-inbox-store.js';
import { type PostgresSettings, readPostgresSettings } from './postgres-settings.js';

/** How `postgresInbox` connects. */
export interface PostgresInboxOptions {
  /**
   * Connection settings in code, over the environment's POSTGRES_* variables (the KafkaConsumer construct
   * sets those from its `postgres` prop).
   * @default - the environment's
   */
  readonly settings?: Partial<PostgresSettings>;
  /**
   * A `pg` pool of your own (its `connect` is all the store uses): the settings' connection is then not
   * opened. The schema still comes from the settings.
   * @default - a pool per execution environment, built from the settings
   */
  readonly pool?: Pick<Pool, 'connect' | 'end'>;
}

/**
 * The Postgres store for `createInboxConsumer({ store })`: read at cold start, connected at the first
 * record. Its tables are made by `msk-inbox postgres migrate` (or `migrationSql()` in your own tool).
 */
export function postgresInbox(options: PostgresInboxOptions = {}): InboxStoreChoice {
  return storeChoice('postgres', {
    create(context) {
      const settings = readPostgresSettings(options.settings ?? {}, process.env, {
        ownPool: options.pool !== undefined,
      });
      const pool: ConnectionSource =
        options.pool ??
        connectionPool(settings, {
          consumer: context.consumer,
          concurrency: context.concurrency,
          credentials: awsCredentials(settings),
        });
      return new PostgresInboxStore({
        pool,
        schema: settings.schema,
        consumer: context.consumer,
        ttlSeconds: context.ttlSeconds,
        clock: context.clock,
        notifyRelay: settings.outboxNotify === 'on',
        ...(context.traceRequest ? { traceRequest: context.traceRequest } : {}),
      });
    },
  });
}

export type { SettingValue } from '../core/settings.js';
export type { InboxStoreChoice } from '../core/store-choice.js';
export { POSTGRES_REJECTED } from './member-transaction.js';
export { POSTGRES_SETTINGS, type PostgresSettingName, type PostgresSettings } from './postgres-settings.js';
export { MIGRATIONS, migrate, migrationSql, type Queryable } from './schema.js';
