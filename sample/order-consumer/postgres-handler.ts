/**
 * Lambda entry of the sample order consumer on Postgres: the inbox row and the order's SQL in one database
 * transaction. The connection comes from the POSTGRES_* settings (lambdas/postgres/postgres-settings.ts).
 */
import { createInboxConsumer } from '../../lambdas/core/index.js';
import { postgresInbox } from '../../lambdas/postgres/index.js';
import { orderSqlConsumer } from './order-placed-sql.js';

export const handler = createInboxConsumer({ ...orderSqlConsumer(), store: postgresInbox() });
