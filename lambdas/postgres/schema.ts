/**
 * The inbox's tables in the business database, as versioned migrations: `migrate` applies the missing
 * ones in one transaction (the `msk-inbox postgres migrate` command runs it), and `migrationSql` prints
 * them for a team whose own migration tool owns the schema. Times are the engine's epoch numbers, as in
 * DynamoDB (expires_at in seconds, the rest in milliseconds), so the clock that judges a row is the
 * consumer's, one definition with the DynamoDB store (docs/postgres.md#schema).
 */

/** Every migration, in order; a shipped one is never edited, only followed by another. */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: (schema: string) => string }[] = [
  {
    version: 1,
    sql: (schema) => `
CREATE SCHEMA IF NOT EXISTS ${schema};
-- One row per applied (or claimed) event of a consumer: the dedup key's unique index is the inbox.
CREATE TABLE ${schema}.inbox (
  consumer      text    NOT NULL,
  dedup_key     text    NOT NULL,
  status        text    NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
  payload_hash  text    NOT NULL,
  source        text    NOT NULL,
  expires_at    bigint  NOT NULL,
  lease_owner   text,
  lease_until   bigint,
  completed_at  bigint,
  completed_by  text,
  PRIMARY KEY (consumer, dedup_key)
);
-- Expired rows are found by this index and deleted in bounded batches.
CREATE INDEX inbox_expires_at ON ${schema}.inbox (expires_at);
-- Records that can never succeed, kept for an operator: the row as quarantine-row.ts bounds it, as JSON
-- text (jsonb refuses U+0000, which a record may carry).
CREATE TABLE ${schema}.quarantine (
  consumer        text    NOT NULL,
  quarantine_key  text    NOT NULL,
  status          text    NOT NULL,
  quarantined_at  bigint  NOT NULL,
  item            text    NOT NULL,
  PRIMARY KEY (consumer, quarantine_key)
);
CREATE INDEX quarantine_by_consumer ON ${schema}.quarantine (consumer, status, quarantined_at);`,
  },
  {
    version: 2,
    sql: (schema) => `
-- The operator tool's rows (docs/operate.md#postgres). A quarantine row parked while \`msk-inbox\` replays
-- its record: the quarantine table's key is then free, so the consumer can quarantine the record again
-- under it (it inserts only where no row is), and a replay that stops half way leaves the record listed.
CREATE TABLE ${schema}.quarantine_replaying (
  consumer        text    NOT NULL,
  quarantine_key  text    NOT NULL,
  status          text    NOT NULL,
  quarantined_at  bigint  NOT NULL,
  item            text    NOT NULL,
  PRIMARY KEY (consumer, quarantine_key)
);
-- One row per failed batch replayed, without expiry (an audit record); counts, runs and notes as JSON text.
CREATE TABLE ${schema}.failed_batch_replays (
  consumer           text     NOT NULL,
  object_name        text     NOT NULL,
  object_key         text     NOT NULL,
  replay_attempts    integer  NOT NULL,
  first_replayed_at  bigint   NOT NULL,
  replayed_at        bigint   NOT NULL,
  replayed_by        text     NOT NULL,
  replay_counts      text     NOT NULL,
  replay_runs        text     NOT NULL,
  replay_notes       text     NOT NULL,
  PRIMARY KEY (consumer, object_name)
);`,
  },
  {
    version: 3,
    sql: (schema) => `
-- The transactional outbox (docs/postgres.md#outbox). One row per consumer, topic and Kafka key: an
-- emitting transaction adds to last_seq and holds the row locked to its COMMIT, so the seqs of one key
-- follow the order its transactions committed (a sequence would not: its values are taken at INSERT).
CREATE TABLE ${schema}.outbox_keys (
  consumer   text    NOT NULL,
  topic      text    NOT NULL,
  kafka_key  text    NOT NULL,
  last_seq   bigint  NOT NULL,
  PRIMARY KEY (consumer, topic, kafka_key)
);
-- Unpublished events; the relay deletes each once Kafka acknowledged it. Keys and the source are stored
-- escaped (sql-text.ts), headers as JSON text: text and jsonb refuse U+0000, which both may carry.
CREATE TABLE ${schema}.outbox (
  id             uuid     PRIMARY KEY,
  consumer       text     NOT NULL,
  topic          text     NOT NULL,
  kafka_key      text     NOT NULL,
  seq            bigint   NOT NULL,
  value          bytea    NOT NULL,
  value_is_text  boolean  NOT NULL,
  headers        text     NOT NULL,
  bytes          integer  NOT NULL,
  committed_at   bigint   NOT NULL,
  source         text     NOT NULL,
  UNIQUE (consumer, topic, kafka_key, seq)
);
-- The age of the oldest unpublished event (the relay's lag), and listings oldest first.
CREATE INDEX outbox_committed_at ON ${schema}.outbox (committed_at);
-- Events the relay could not publish for good, kept for an operator to fix and republish.
CREATE TABLE ${schema}.outbox_quarantine (
  id              uuid     PRIMARY KEY,
  consumer        text     NOT NULL,
  topic           text     NOT NULL,
  kafka_key       text     NOT NULL,
  value           bytea    NOT NULL,
  value_is_text   boolean  NOT NULL,
  headers         text     NOT NULL,
  bytes           integer  NOT NULL,
  committed_at    bigint   NOT NULL,
  source          text     NOT NULL,
  reason          text     NOT NULL,
  error           text     NOT NULL,
  quarantined_at  bigint   NOT NULL
);
CREATE INDEX outbox_quarantine_by_consumer ON ${schema}.outbox_quarantine (consumer, quarantined_at);`,
  },
];

export const SCHEMA_VERSION_TABLE = 'schema_version';

/** Identifiers are interpolated (SQL has no parameters for them): only a plain lower-case name passes. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkedSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) {
    throw new TypeError(
      `schema "${schema}" must be a lower-case SQL identifier: letters, digits and underscores, 63 at most`,
    );
  }
  return schema;
}

/** The whole schema as one script, for a team's own migration tool. */
export function migrationSql(schema = 'msk_inbox'): string {
  const name = checkedSchema(schema);
  return [
    versionTableSql(name),
    ...MIGRATIONS.map(
      (migration) =>
        `-- msk-inbox migration ${migration.version}${migration.sql(name)}\nINSERT INTO ${name}.${SCHEMA_VERSION_TABLE} (version) VALUES (${migration.version});`,
    ),
  ].join('\n\n');
}

function versionTableSql(schema: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${schema}.${SCHEMA_VERSION_TABLE} (
  version     integer      PRIMARY KEY,
  applied_at  timestamptz  NOT NULL DEFAULT now()
);`;
}

/**
 * What `migrate` needs of a connection: the `pg` client's query. One connection (a `pg.Client`, or a
 * client from `pool.connect()`), never a pool, whose statements may each go to another connection.
 */
export interface Queryable {
  /** Runs one statement (or a script, without parameters). */
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Applies the migrations the database lacks, in one transaction, under an advisory lock so two runs at
 * once (two deploys) apply each migration once. Returns the versions applied now.
 */
export async function migrate(client: Queryable, schema = 'msk_inbox'): Promise<number[]> {
  const name = checkedSchema(schema);
  await client.query('BEGIN');
  try {
    // One lock per schema name, held to the end of the transaction.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`msk-inbox:${name}`]);
    await client.query(versionTableSql(name));
    const { rows } = await client.query(`SELECT version FROM ${name}.${SCHEMA_VERSION_TABLE}`);
    const applied = new Set(rows.map((row) => Number(row.version)));
    const now: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql(name));
      await client.query(`INSERT INTO ${name}.${SCHEMA_VERSION_TABLE} (version) VALUES ($1)`, [
        migration.version,
      ]);
      now.push(migration.version);
    }
    await client.query('COMMIT');
    return now;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
