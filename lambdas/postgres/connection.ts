/**
 * The execution environment's connections: one small `pg` pool, sized to the records that reach the
 * database at once (the partitions an invocation runs), built at the first connection so a secret is
 * read once per cold start (docs/postgres.md#connections). Idle connections die across freezes: the pool
 * drops them quietly, and the next record opens another.
 */
import pg, { type PoolClient, type PoolConfig } from 'pg';
import type { PostgresSettings } from './postgres-settings.js';

/** What the store needs of connections. */
export interface ConnectionSource {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
}

/** A connection not answering within this is given up: the record is retried, never stuck. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The driver's own deadline past the server's statement timeout, for a server that stopped answering. */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;

export interface PoolContext {
  readonly consumer: string;
  /** Records at the database at once: the pool's size unless POSTGRES_POOL_MAX says otherwise. */
  readonly concurrency: number;
  /** How a password is found for IAM and secret authentication (aws-credentials.ts). */
  readonly credentials: () => Promise<{ readonly user?: string; readonly password: () => Promise<string> }>;
  /**
   * The server ends a session idle in an open transaction this long (idle_in_transaction_session_timeout),
   * and TCP keepalive finds a peer that vanished: for a pool that holds transactions across slow calls of
   * its own (the outbox relay's rounds, around Kafka sends), so a lost client never keeps its locks.
   * @default - neither: the server's setting, no keepalive
   */
  readonly idleInTransactionTimeoutMs?: number;
}

export function connectionPool(settings: PostgresSettings, context: PoolContext): ConnectionSource {
  let pool: Promise<pg.Pool> | undefined;
  const poolOf = (): Promise<pg.Pool> => {
    pool ??= poolConfig(settings, context).then((config) => {
      const created = new pg.Pool(config);
      // An idle connection's error (a proxy closing it while the environment was frozen) must not crash
      // the process: the pool has dropped it already.
      created.on('error', () => undefined);
      return created;
    });
    // A failed start (a secret that cannot be read) is tried again by the next record.
    pool.catch(() => {
      pool = undefined;
    });
    return pool;
  };
  return {
    async connect() {
      return (await poolOf()).connect();
    },
    async end() {
      if (pool) await (await pool).end();
    },
  };
}

async function poolConfig(settings: PostgresSettings, context: PoolContext): Promise<PoolConfig> {
  const common: PoolConfig = {
    max: settings.poolMax > 0 ? settings.poolMax : Math.max(1, context.concurrency),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: settings.idleTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    application_name: `msk-inbox:${context.consumer}`,
    ...(context.idleInTransactionTimeoutMs === undefined
      ? {}
      : { idle_in_transaction_session_timeout: context.idleInTransactionTimeoutMs, keepAlive: true }),
  };
  if (settings.auth === 'url') return { ...common, connectionString: settings.url };
  const credentials = await context.credentials();
  return {
    ...common,
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: credentials.user ?? settings.user,
    password: credentials.password,
    ssl: tlsOf(settings.tls),
  };
}

/** `verify-full`: Node checks the chain and the host name; `require`: encrypted, unchecked. */
function tlsOf(tls: PostgresSettings['tls']): PoolConfig['ssl'] {
  switch (tls) {
    case 'verify-full':
      return { rejectUnauthorized: true };
    case 'require':
      return { rejectUnauthorized: false };
    case 'disable':
      return false;
  }
}

/**
 * One operation on a pooled connection: released after it, or destroyed (never reused) when it threw, as
 * an error may have left it mid-transaction or broken. pg-pool listens for a client's 'error' only while
 * it is idle: a connection dying while checked out (a killed backend, a cut network, a lost COMMIT answer)
 * would be an uncaught exception, ending the process, so one is listened for here; the failure reaches
 * the operation through the statement it fails, or the next one.
 */
export async function withPooledClient<T>(
  client: PoolClient,
  use: (client: PoolClient) => Promise<T>,
): Promise<T> {
  client.on('error', ignoreConnectionError);
  try {
    const result = await use(client);
    client.release();
    return result;
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    // After the release: until then the pool has no listener of its own on the client.
    client.removeListener('error', ignoreConnectionError);
  }
}

function ignoreConnectionError(): void {}
