/**
 * The schemas one soak run (or one test file) shares on a Postgres server: the inbox's tables as the
 * store's migrations make them, the sample's accounts and orders, and the soak's own table whose deferred
 * trigger refuses a COMMIT (the `commit-refused` fault: a serialization failure the server raises at
 * COMMIT and answers by rolling back). Schedules keep apart by their consumer names and ids.
 */
import { migrate } from '../../lambdas/postgres/schema.js';
import { orderTablesSql } from '../../sample/order-consumer/order-placed-sql.js';
import type { PostgresConnections } from './postgres-connections.js';
import type { PostgresSoakTarget } from './schedule-result.js';

/** `runId`: lower-case letters and digits, so the schema names need no quoting. */
export async function preparePostgresSoak(
  connections: PostgresConnections,
  runId: string,
): Promise<PostgresSoakTarget> {
  const target: PostgresSoakTarget = {
    store: 'postgres',
    connections,
    inboxSchema: `soak_inbox_${runId}`,
    appSchema: `soak_app_${runId}`,
    faultSchema: `soak_faults_${runId}`,
  };
  const client = await connections.connect();
  try {
    await migrate(client, target.inboxSchema);
  } finally {
    client.release();
  }
  await connections.query(`CREATE SCHEMA ${target.appSchema}`);
  await connections.query(orderTablesSql(target.appSchema));
  const faults = target.faultSchema;
  await connections.query(`CREATE SCHEMA ${faults};
CREATE TABLE ${faults}.commit_refusals (id bigserial PRIMARY KEY);
CREATE FUNCTION ${faults}.refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'could not serialize access due to read/write dependencies among transactions'
    USING ERRCODE = 'serialization_failure';
END $$;
CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT ON ${faults}.commit_refusals
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${faults}.refuse_commit();`);
  return target;
}

/** Drops the run's schemas with all they hold. */
export async function dropPostgresSoak(target: PostgresSoakTarget): Promise<void> {
  await target.connections.query(
    `DROP SCHEMA ${target.inboxSchema}, ${target.appSchema}, ${target.faultSchema} CASCADE`,
  );
}
