/**
 * The store `npm run soak` runs against, opened and closed: DynamoDB Local (its own, or one at
 * --endpoint), or Postgres (a server at --url; else Debian's postgresql where installed, for real
 * concurrency between sessions; else PGlite, one session that every connection shares). Each comes with
 * the tables (or schemas) the schedules share and the poison batches' own.
 */
import pg from 'pg';
import { UserError } from '../../operator/cli/user-error.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { answers, startDynamoDbLocal } from '../dynamodb-local/server.js';
import { createAppTable, createInboxTable } from '../dynamodb-local/tables.js';
import { postgresPoisonStore } from '../poison/order-sql-consumer-under-test.js';
import { dynamoDbPoisonStore, type PoisonBatchStore } from '../poison/poison-soak.js';
import { findDebianPostgres, startDebianPostgres } from '../postgres/debian-postgres.js';
import { startPglite } from '../postgres/pglite-server.js';
import type { RunningPostgres } from '../postgres/running-postgres.js';
import { postgresConnections } from './postgres-connections.js';
import { dropPostgresSoak, preparePostgresSoak } from './postgres-soak-setup.js';
import type { SoakTarget } from './schedule-result.js';

export interface OpenedTarget {
  readonly target: SoakTarget;
  readonly poison: PoisonBatchStore;
  /** What the soak runs on, for its first line. */
  readonly description: string;
  /** Schedules in flight at once when --concurrency is not given. */
  readonly concurrency: number;
  close(): Promise<void>;
}

/** `runId`: lower-case letters and digits. */
export async function openDynamoDbTarget(given: string | undefined, runId: string): Promise<OpenedTarget> {
  if (given !== undefined && !(await answers(given))) {
    throw new UserError(
      `nothing answers at --endpoint ${given}: start DynamoDB Local there, or drop the flag to have one started`,
    );
  }
  const server = given === undefined ? await startDynamoDbLocal() : undefined;
  const endpoint = given ?? server?.endpoint ?? '';
  try {
    const client = localDynamoDbClient(endpoint);
    const target = { endpoint, inboxTableName: `soak-inbox-${runId}`, appTableName: `soak-app-${runId}` };
    await createInboxTable(client, target.inboxTableName);
    await createAppTable(client, target.appTableName);
    client.destroy();
    return {
      target,
      poison: dynamoDbPoisonStore(endpoint, runId),
      description: `DynamoDB Local at ${endpoint}`,
      concurrency: 6,
      close: async () => {
        await server?.stop();
      },
    };
  } catch (error) {
    await server?.stop();
    throw error;
  }
}

export async function openPostgresTarget(given: string | undefined, runId: string): Promise<OpenedTarget> {
  if (given !== undefined) await checkAnswers(given);
  const server: RunningPostgres | undefined =
    given !== undefined
      ? undefined
      : findDebianPostgres()
        ? await startDebianPostgres()
        : await startPglite();
  const url = given ?? server?.url ?? '';
  const kind = server?.kind ?? 'postgresql';
  const connections = postgresConnections(url, kind);
  try {
    const target = await preparePostgresSoak(connections, runId);
    return {
      target,
      poison: postgresPoisonStore(connections, runId),
      description:
        kind === 'pglite'
          ? `PGlite at ${url} (Debian's postgresql is not installed: one session, shared by every connection, so the schedules take turns at the store)`
          : `Postgres (${server ? "Debian's postgresql" : 'the server at --url'}) at ${url}`,
      // PGlite's one session serializes the store's operations: more schedules at once only wait longer.
      concurrency: kind === 'pglite' ? 2 : 6,
      close: async () => {
        try {
          await dropPostgresSoak(target).catch(() => undefined);
          await connections.end();
        } finally {
          await server?.stop();
        }
      },
    };
  } catch (error) {
    await connections.end().catch(() => undefined);
    await server?.stop();
    throw error;
  }
}

async function checkAnswers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new UserError(
      `no Postgres answers at --url ${url} (${error instanceof Error ? error.message : String(error)}): start one there, or drop the flag to have one started`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
