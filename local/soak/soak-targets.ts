/**
 * The store `npm run soak` runs against, opened and closed: DynamoDB Local (its own, or one at
 * --endpoint), Postgres (a server at --url; else Debian's postgresql where installed, for real
 * concurrency between sessions; else PGlite, one session that every connection shares), or Redis (a
 * server at --url; else its own durable redis-server, which the schedules restart). Each comes with the
 * tables (or schemas) the schedules share and the poison batches' own (none on Redis: the poison batches
 * are transactional).
 */
import { Redis } from 'ioredis';
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
import { type DurableRedis, startDurableRedisServer } from '../redis/redis-server.js';
import { postgresConnections } from './postgres-connections.js';
import { dropPostgresSoak, preparePostgresSoak } from './postgres-soak-setup.js';
import { ServerRestarts } from './redis-server-restarts.js';
import type { RedisSoakTarget, SoakTarget } from './schedule-result.js';
import { consumerNamePrefix } from './schedule-runner.js';

export interface OpenedTarget {
  readonly target: SoakTarget;
  /** Where the hostile batches run; none on Redis (they are transactional). */
  readonly poison?: PoisonBatchStore;
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

/**
 * Redis: the server at --url (not the soak's to restart: its schedules' restarts do not fire), else a
 * durable redis-server of the soak's own, which they crash and restart. On a server at --url the run's
 * keys are deleted at the end, found by its consumer names.
 */
export async function openRedisTarget(given: string | undefined, runId: string): Promise<OpenedTarget> {
  if (given !== undefined) await checkRedisAnswers(given);
  const server: DurableRedis | undefined = given === undefined ? await startDurableRedisServer() : undefined;
  const url = given ?? server?.url ?? '';
  const target = redisSoakTarget(url, server);
  const { harness } = target;
  return {
    target,
    description: server
      ? `Redis (its own redis-server, append-only file fsynced before every answer, restarted by the schedules) at ${url}`
      : `Redis (the server at --url, not the soak's to restart: no server restarts) at ${url}`,
    concurrency: 6,
    close: async () => {
      try {
        if (!server) await deleteRunKeys(harness, runId);
        harness.disconnect();
      } finally {
        await server?.stop();
      }
    },
  };
}

/**
 * The schedules' target on the Redis server at `url`: the soak's own client and, when the server is the
 * soak's (`server`), its restarts. End it with `target.harness.disconnect()`.
 */
export function redisSoakTarget(url: string, server?: DurableRedis): RedisSoakTarget {
  // Without a limit on resends: it waits out a restart (ioredis's offline queue), as a harness must.
  const harness = new Redis(url, { maxRetriesPerRequest: null });
  harness.on('error', () => undefined);
  return { store: 'redis', url, harness, ...(server ? { restarts: new ServerRestarts(server) } : {}) };
}

/** Every key of the run's schedules (rows and quarantine entries): each holds its consumer's name. */
async function deleteRunKeys(harness: Redis, runId: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await harness.scan(
      cursor,
      'MATCH',
      `*${consumerNamePrefix(runId)}*`,
      'COUNT',
      1_000,
    );
    if (keys.length > 0) await harness.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

async function checkRedisAnswers(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new UserError(
      `nothing answers at --url ${url} (${error instanceof Error ? error.message : String(error)}): start redis-server there, or drop the flag to have one started`,
    );
  } finally {
    client.disconnect();
  }
}
