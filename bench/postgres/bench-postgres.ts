/**
 * The Postgres the bench runs its Postgres contenders on: Debian's server where installed (real sessions in
 * parallel, the pool as the store sizes it), else PGlite (one session: pool max 1, so the figures say
 * nothing about concurrency). One server per bench run; each sequence gets a fresh schema, dropped after it,
 * as the DynamoDB contenders get fresh tables.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../lambdas/postgres/schema.js';
import { findDebianPostgres, startDebianPostgres } from '../../local/postgres/debian-postgres.js';
import { startPglite } from '../../local/postgres/pglite-server.js';
import type { PostgresKind, RunningPostgres } from '../../local/postgres/running-postgres.js';
import { orderTablesSql } from '../../sample/order-consumer/order-placed-sql.js';
import type { PostgresContender } from '../contenders/postgres-inbox.js';
import { StatementCounter } from '../measure/statement-counter.js';
import { checkExactlyOnce, type DeliveryMeasurement, measureDeliveries } from '../measure/throughput.js';
import type { Sequence } from '../scenarios.js';

export interface BenchPostgres {
  readonly url: string;
  readonly kind: PostgresKind;
  /** For the page and the progress output: which server, its version, and why its pool is what it is. */
  readonly description: string;
  /** POSTGRES_POOL_MAX for the contenders: 0 (the store sizes its pool) or 1 on PGlite. */
  readonly poolMax: number;
  stop(): Promise<void>;
}

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const debian = findDebianPostgres() !== undefined;
  const running: RunningPostgres = debian ? await startDebianPostgres() : await startPglite();
  try {
    const version = await withClient(running.url, async (client) => {
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      // `15.18 (Debian 15.18-0+deb12u1)`: the version is enough.
      return rows[0]?.server_version.split(' ')[0] ?? 'unknown';
    });
    return {
      url: running.url,
      kind: running.kind,
      description: debian
        ? `Debian's PostgreSQL ${version} (a real server: the store's pool, one connection per partition at once)`
        : `PGlite (Postgres ${version} in WASM; Debian's postgresql is not installed): ONE session, so pool max 1 and records take turns at it`,
      poolMax: debian ? 0 : 1,
      stop: () => running.stop(),
    };
  } catch (error) {
    await running.stop();
    throw error;
  }
}

export interface PostgresSequenceRun {
  readonly server: BenchPostgres;
  /** Also compare every account balance with the exactly-once expectation (not timed). */
  readonly verify: boolean;
  /** Each statement's modelled round trip; 0 for none. */
  readonly rttMs: number;
}

/** One sequence for one contender: a fresh container on a fresh schema, measured delivery by delivery. */
export async function runPostgresSequence(
  contender: PostgresContender,
  sequence: Sequence,
  run: PostgresSequenceRun,
): Promise<DeliveryMeasurement[]> {
  const { url, poolMax } = run.server;
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  // One connection at a time for set-up and checks: on PGlite the contender's pool must not be open then.
  await withClient(url, async (client) => {
    await migrate(client, schema);
    await client.query(orderTablesSql(schema));
  });
  try {
    const counter = new StatementCounter();
    const container = contender.createContainer({
      url,
      schema,
      poolMax,
      model: { rttMs: run.rttMs, counter },
    });
    let measurements: DeliveryMeasurement[];
    try {
      measurements = await measureDeliveries({
        contender: contender.name,
        store: 'postgres',
        container,
        counter,
        sequence,
        rttMs: run.rttMs,
      });
    } finally {
      await container.close();
    }
    if (run.verify) {
      checkExactlyOnce(contender.name, sequence, await withClient(url, (client) => balances(client, schema)));
    }
    return measurements;
  } finally {
    await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
  }
}

/** Every account balance of the sample's accounts table. */
async function balances(client: pg.Client, schema: string): Promise<Map<string, number>> {
  const { rows } = await client.query<{ account_id: string; balance: string }>(
    `SELECT account_id, balance FROM ${schema}.accounts`,
  );
  return new Map(rows.map((row) => [row.account_id, Number(row.balance)]));
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
