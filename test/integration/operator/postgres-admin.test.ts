/**
 * `msk-inbox postgres migrate | delete-expired`, the failed-batches commands on a Postgres inbox (their
 * replay log in failed_batch_replays), `--stack` with Postgres outputs, and a person's mistakes as one
 * line each. One PGlite for the file; each test in a schema of its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaBatchResponse, KafkaEvent } from '../../../lambdas/core/kafka-event.js';
import { MIGRATIONS } from '../../../lambdas/postgres/schema.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { runOperator } from '../../../operator/operator-main.js';
import { startCloudFormationStub } from '../../support/cloudformation-stub.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { type LocalPostgres, startLocalPostgres } from '../../support/local-postgres.js';
import { appliedOrdersSql } from './fixtures/applied-orders.js';
import { fillOnFailureFolder } from './fixtures/on-failure-folder.js';
import { CONSUMER, deliver } from './operator-harness.js';
import {
  collectingIo,
  pgOperator,
  SQL_HANDLER_FILE,
  sqlAppliedCountOf,
  useSqlConsumerEnvironment,
} from './postgres-harness.js';

let postgres: LocalPostgres;
const run = (schema: string, ...argv: string[]) => pgOperator(postgres.url, schema, argv);
const tablesOf = async (schema: string) =>
  (
    await postgres.pool.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    )
  ).rows.map((row) => String(row.table_name));

beforeAll(async () => {
  postgres = await startLocalPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('postgres migrate', () => {
  it('makes the tables, and a second run applies nothing and changes nothing', async () => {
    const first = await run('admin_migrate', 'postgres', 'migrate', '--json');
    const latest = MIGRATIONS.at(-1)?.version;
    expect(JSON.parse(first.out)).toEqual({
      schema: 'admin_migrate',
      applied: MIGRATIONS.map((m) => m.version),
      version: latest,
    });
    const tables = await tablesOf('admin_migrate');
    expect(tables).toEqual([
      'failed_batch_replays',
      'inbox',
      'outbox',
      'outbox_keys',
      'outbox_quarantine',
      'quarantine',
      'quarantine_replaying',
      'schema_version',
    ]);
    const second = await run('admin_migrate', 'postgres', 'migrate');
    expect(second.out).toMatch(
      new RegExp(
        `^schema admin_migrate at 127\\.0\\.0\\.1:\\d+/postgres is up to date \\(migration ${latest}\\): nothing applied$`,
      ),
    );
    expect(await tablesOf('admin_migrate')).toEqual(tables);
  });

  it('prints the SQL with --print and connects nothing', async () => {
    const { io, run: ran } = collectingIo();
    const code = await runOperator(['postgres', 'migrate', '--print', '--schema', 'printed'], io);
    expect(code).toBe(0);
    expect(ran(code).out).toContain('CREATE TABLE printed.quarantine_replaying');
    expect(ran(code).out).toContain('CREATE TABLE printed.outbox_keys');
    expect(ran(code).out).toContain('INSERT INTO printed.schema_version (version) VALUES (3);');
    expect(await tablesOf('printed')).toEqual([]);
  });
});

describe('postgres delete-expired', () => {
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const seed = async (consumer: string, count: number, expiresAt: number) =>
    postgres.pool.query(
      `INSERT INTO admin_expired.inbox (consumer, dedup_key, status, payload_hash, source, expires_at)
       SELECT $1, 'k' || n, 'COMPLETED', 'h', 'orders-0@' || n, $3 FROM generate_series(1, $2) AS n`,
      [consumer, count, expiresAt],
    );
  const remaining = async (consumer: string) =>
    Number(
      (
        await postgres.pool.query('SELECT count(*) AS n FROM admin_expired.inbox WHERE consumer = $1', [
          consumer,
        ])
      ).rows[0]?.n,
    );

  it("deletes the consumer's expired rows in bounded runs, leaving live rows and other consumers' alone", async () => {
    expect((await run('admin_expired', 'postgres', 'migrate')).code).toBe(0);
    await seed(CONSUMER, 2_500, nowSeconds() - 60);
    await postgres.pool.query(
      `INSERT INTO admin_expired.inbox (consumer, dedup_key, status, payload_hash, source, expires_at)
       VALUES ($1, 'live-1', 'COMPLETED', 'h', 's', $2), ($1, 'live-2', 'COMPLETED', 'h', 's', $2)`,
      [CONSUMER, nowSeconds() + 3_600],
    );
    await seed('payments', 5, nowSeconds() - 60);
    const bounded = await run('admin_expired', 'postgres', 'delete-expired', '--max', '1200', '--json');
    expect(JSON.parse(bounded.out)).toMatchObject({ deleted: 1_200, more: true });
    expect(await remaining(CONSUMER)).toBe(2_500 - 1_200 + 2);
    const rest = await run('admin_expired', 'postgres', 'delete-expired');
    expect(rest.out).toMatch(/^deleted 1300 expired dedup row\(s\) of consumer orders/);
    expect(await remaining(CONSUMER)).toBe(2);
    expect(await remaining('payments')).toBe(5);
  });
});

describe("a person's mistakes, one line each", () => {
  it('names a URL that is not one, without its password', async () => {
    const notUrl = pgOperator('mysql://u:hunter2@host/db', 'x', ['quarantine', 'list']);
    await expect(notUrl).rejects.toThrow(UserError);
    await expect(notUrl).rejects.toThrow(
      /^--postgres mysql:\/\/u:\*\*\*@host\/db is not a postgres:\/\/ URL: e\.g\. postgres:\/\//,
    );
  });

  it('names missing tables with the command that makes them', async () => {
    await expect(run('never_migrated', 'quarantine', 'list')).rejects.toThrow(
      /^the inbox tables are missing or out of date in schema never_migrated at 127\.0\.0\.1:\d+\/postgres \(.*\): run `msk-inbox postgres migrate --postgres postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres --schema never_migrated`$/,
    );
  });

  it('says nothing answers at an address, and never shows the password', async () => {
    const refused = pgOperator('postgres://u:hunter2@127.0.0.1:9/app', 'x', ['quarantine', 'list']);
    await expect(refused).rejects.toThrow(
      /^nothing answers at 127\.0\.0\.1:9\/app \(ECONNREFUSED\): is the database running\? check --postgres$/,
    );
    await expect(refused).rejects.not.toThrow(/hunter2/);
  });

  it('refuses --postgres with --table, and a schema that is not a plain name', async () => {
    await expect(run('x', 'quarantine', 'list', '--table', 'inbox')).rejects.toThrow(
      '--postgres or --table, not both: the inbox is in one of them',
    );
    await expect(run('Bad-Name', 'quarantine', 'list')).rejects.toThrow(
      /^--schema "Bad-Name" must be a lower-case SQL identifier/,
    );
  });
});

describe('failed-batches on Postgres, and --stack with Postgres outputs', () => {
  const SCHEMA = 'admin_batches';
  let folder: string;
  let consumer: (event: KafkaEvent, context: Context) => Promise<KafkaBatchResponse>;
  const batches = (...argv: string[]) => run(SCHEMA, 'failed-batches', ...argv, '--dir', folder, '--json');

  beforeAll(async () => {
    expect((await run(SCHEMA, 'postgres', 'migrate')).code).toBe(0);
    await postgres.pool.query(appliedOrdersSql(SCHEMA));
    useSqlConsumerEnvironment(postgres.url, SCHEMA);
    consumer = (await import('./fixtures/sql-orders-handler.js')).handler;
    folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
    expect(await fillOnFailureFolder(folder)).toBe(2);
    // a-1 was applied before its batch failed: a replay finds it a duplicate.
    const applied = kafkaEvent([{ partition: 0, offset: 0, value: { event_id: 'a-1', amount: 10 } }]);
    expect((await deliver(applied, Date.now(), consumer)).batchItemFailures).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('replays each record once, tells the outcomes from Postgres, and logs the replay there', async () => {
    const listed = JSON.parse((await batches('list')).out).batches as {
      id: string;
      partitions: { partition: string }[];
    }[];
    const id = listed.find((b) => b.partitions[0]?.partition === 'orders-0')?.id ?? '';
    const shown = JSON.parse((await batches('show', id)).out);
    expect(shown.records[0]).toMatchObject({ dedupKey: 'a-1', inbox: 'applied (first seen at orders-0@0)' });
    const replayed = await run(
      SCHEMA,
      'failed-batches',
      'replay',
      '--all',
      '--dir',
      folder,
      '--handler',
      SQL_HANDLER_FILE,
      '--json',
    );
    const outcomes = Object.fromEntries(
      (
        JSON.parse(replayed.out).batches as {
          records: { partition: string; offset: number; outcome: string }[];
        }[]
      )
        .flatMap((b) => b.records)
        .map((r) => [`${r.partition}@${r.offset}`, r.outcome]),
    );
    expect(outcomes).toEqual({
      'orders-0@0': 'duplicate',
      'orders-0@1': 'applied',
      'orders-0@2': 'quarantined',
      'orders-0@3': 'applied',
      'orders-1@0': 'applied',
      'orders-1@1': 'applied',
    });
    expect(replayed.code).toBe(1);
    expect(await sqlAppliedCountOf(postgres.pool, SCHEMA, 'a-2')).toBe(1);
    await run(SCHEMA, 'failed-batches', 'replay', '--all', '--dir', folder, '--handler', SQL_HANDLER_FILE);
    expect(await sqlAppliedCountOf(postgres.pool, SCHEMA, 'a-2')).toBe(1);
    const logged = JSON.parse((await batches('list')).out).batches as {
      partitions: { partition: string }[];
      replay: { attempts: number; counts: Record<string, number>; replayedBy: string };
    }[];
    expect(logged.find((b) => b.partitions[0]?.partition === 'orders-0')?.replay).toMatchObject({
      attempts: 2,
      counts: { duplicate: 3, quarantined: 1 },
      replayedBy: 'test-operator',
    });
  });

  it("reads the stack's Postgres outputs and connects as the consumer does", async () => {
    const port = new URL(postgres.url).port;
    const cloudFormation = await startCloudFormationStub({
      Orders: {
        ConsumerName: CONSUMER,
        PostgresHost: '127.0.0.1',
        PostgresPort: port,
        PostgresDatabase: 'postgres',
        PostgresUser: 'postgres',
        PostgresAuth: 'iam',
        PostgresSchema: SCHEMA,
        PostgresTls: 'disable',
      },
    });
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
    });
    try {
      const { io, run: ran } = collectingIo();
      const code = await runOperator(['quarantine', 'list', '--stack', 'Orders', '--json'], io);
      expect(code).toBe(0);
      expect(JSON.parse(ran(code).out)).toMatchObject({
        consumer: CONSUMER,
        countsByReason: { 'invalid-event': 1 },
      });
    } finally {
      process.env = saved;
      await cloudFormation.close();
    }
  });
});
