/**
 * The Postgres store's rows, on PGlite and Debian's Postgres: keys holding what Postgres text cannot
 * (U+0000) stored without two keys meeting (lambdas/postgres/sql-text.ts), quarantine rows kept as JSON
 * text an operator reads back with readQuarantineRow, and expired rows deleted in bounded batches.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RawRecordView } from '../../../lambdas/core/decode-event.js';
import { readQuarantineRow } from '../../../lambdas/core/quarantine-row.js';
import {
  EXPIRED_ROWS_PER_DELETE,
  type PostgresInboxStore,
} from '../../../lambdas/postgres/postgres-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { entry } from '../../support/inbox-store.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import {
  CONSUMER,
  countRows,
  inboxDatabase,
  postgresStore,
  recordingPool,
  TTL_SECONDS,
} from '../../support/postgres-inbox.js';

const RECORD: RawRecordView = {
  topic: 'orders',
  partition: 0,
  offset: 1,
  timestamp: 1,
  timestampType: 'CREATE_TIME',
  key: null,
  value: null,
  headers: [],
};

/** Keys that an escaping scheme could confuse: U+0000 against its escape, backslashes leading or not. */
const LOOKALIKE_KEYS = [
  'a\u0000b',
  'a\\0b',
  '\\a\u0000b',
  '\\a\\0b',
  'ab',
  '\u0000',
  '\\0',
  '\\',
  '\\\\',
  '\\\\0',
  'a\\',
  'a\u0000',
  '',
];

describeOnPostgres('PostgresInboxStore rows', (target) => {
  let db: FreshSchema;
  let clock: ManualClock;
  let store: PostgresInboxStore;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    clock = new ManualClock();
    store = postgresStore(db, clock);
  });
  afterEach(() => db.drop());

  describe('dedup keys with U+0000 and backslashes', () => {
    it('gives each key a row of its own: none is the duplicate of another', async () => {
      for (const [index, key] of LOOKALIKE_KEYS.entries()) {
        expect(await store.commit(entry(key, 'hash-1', `orders-0@${index}`), [])).toEqual({
          kind: 'committed',
        });
      }

      expect(await countRows(db, 'inbox')).toBe(LOOKALIKE_KEYS.length);
      for (const [index, key] of LOOKALIKE_KEYS.entries()) {
        expect(await store.commit(entry(key, 'hash-1', 'orders-1@0'), [])).toMatchObject({
          kind: 'duplicate',
          existing: { source: `orders-0@${index}` },
        });
      }
    });

    it('claims, completes and releases such keys under their own leases', async () => {
      const until = clock.nowMs() + 60_000;
      const nul = await store.claim(entry('k\u0000'), until);
      const escaped = await store.claim(entry('k\\0'), until);
      if (nul.kind !== 'claimed' || escaped.kind !== 'claimed') throw new Error('both keys are free');

      expect(await store.complete(nul.lease)).toBe('completed');
      expect(await store.release(escaped.lease)).toBe('released');
      expect((await store.claim(entry('k\u0000'), until)).kind).toBe('duplicate');
      expect((await store.claim(entry('k\\0'), until)).kind).toBe('claimed');
    });

    it('keeps quarantine coordinates apart the same way', async () => {
      expect(
        await store.quarantine({ coordinates: 'c\u0000', reason: 'r', message: 'm', record: RECORD }),
      ).toBe('quarantined');

      expect(await store.isQuarantined('c\\0')).toBe(false);
      expect(await store.quarantine({ coordinates: 'c\\0', reason: 'r', message: 'm', record: RECORD })).toBe(
        'quarantined',
      );
      expect(await store.isQuarantined('c\u0000')).toBe(true);
    });

    it('stores a source with U+0000 readably, as U+FFFD', async () => {
      await store.commit(entry('k1', 'hash-1', 'ord\u0000ers-0@1'), []);

      expect(await store.commit(entry('k1'), [])).toMatchObject({ existing: { source: 'ord\uFFFDers-0@1' } });
    });
  });

  describe('quarantine rows', () => {
    it('are JSON text that keeps U+0000 and reads back as the row an operator sees', async () => {
      const record = {
        topic: 'orders\u0000eu',
        partition: 3,
        offset: 42,
        timestamp: 1_700_000_000_000,
        timestampType: 'CREATE_TIME',
        key: 'a2V5',
        value: 'AAE=',
        headers: [{ trace: [0, 1] }],
      };
      await store.quarantine({
        coordinates: 'orders\u0000eu-3@42',
        reason: 'invalid-event',
        message: 'field \u0000 is not allowed',
        record,
        dedupKey: 'evt\u00001',
      });

      const { rows } = await db.pool.query<{ item: string; status: string; quarantine_key: string }>(
        `select item, status, quarantine_key from ${db.schema}.quarantine where consumer = $1`,
        [CONSUMER],
      );
      expect(rows).toHaveLength(1);
      const stored = rows[0] as { item: string; status: string; quarantine_key: string };
      expect(stored.status).toBe('QUARANTINED');
      const row = readQuarantineRow(CONSUMER, JSON.parse(stored.item));
      expect(row).toMatchObject({
        status: 'QUARANTINED',
        reason: 'invalid-event',
        error: 'field \u0000 is not allowed',
        quarantinedAt: clock.nowMs(),
        record: { topic: 'orders\u0000eu', partition: 3, offset: 42, key: 'a2V5', value: 'AAE=' },
        consumer: { dedupKey: 'evt\u00001', dedupTtlSeconds: TTL_SECONDS },
        parked: false,
      });
      expect(JSON.parse(row.record.headers ?? 'null')).toEqual([{ trace: [0, 1] }]);
    });
  });

  describe('deleteExpiredRows', () => {
    /** Inserts `count` rows of `consumer` expiring at `expiresAt` (epoch seconds) straight into the table. */
    const insertRows = async (consumer: string, prefix: string, count: number, expiresAt: number) => {
      await db.pool.query(
        `insert into ${db.schema}.inbox (consumer, dedup_key, status, payload_hash, source, expires_at, completed_at)
         select $1, $2 || n, 'COMPLETED', 'h', 's', $3, 0 from generate_series(1, $4) as n`,
        [consumer, prefix, expiresAt, count],
      );
    };
    const keysOf = async (consumer: string) =>
      (
        await db.pool.query<{ dedup_key: string }>(
          `select dedup_key from ${db.schema}.inbox where consumer = $1 order by dedup_key`,
          [consumer],
        )
      ).rows.map((row) => row.dedup_key);

    it('deletes only the expired rows of its own consumer', async () => {
      const nowSeconds = Math.floor(clock.nowMs() / 1000);
      await insertRows(CONSUMER, 'expired-', 3, nowSeconds - 1);
      await insertRows(CONSUMER, 'last-second-', 1, nowSeconds);
      await insertRows(CONSUMER, 'live-', 2, nowSeconds + 60);
      await insertRows('other-consumer', 'expired-', 2, nowSeconds - 1);
      await store.quarantine({
        coordinates: 'orders-0@1',
        reason: 'r',
        message: 'm',
        record: RECORD,
      });

      expect(await store.deleteExpiredRows(100)).toEqual({ deleted: 3, more: false });

      expect(await keysOf(CONSUMER)).toEqual(['last-second-1', 'live-1', 'live-2']);
      expect(await keysOf('other-consumer')).toEqual(['expired-1', 'expired-2']);
      expect(await countRows(db, 'quarantine')).toBe(1);
    });

    it('deletes a row the store wrote once its window is over, and the key is new again', async () => {
      await store.commit(entry('k1'), []);
      clock.advance(TTL_SECONDS * 1000);
      expect(await store.deleteExpiredRows(10)).toEqual({ deleted: 0, more: false });
      clock.advance(1000);

      expect(await store.deleteExpiredRows(10)).toEqual({ deleted: 1, more: false });
      expect(await store.commit(entry('k1', 'hash-2'), [])).toEqual({ kind: 'committed' });
    });

    it('stops at maxRows and says more are left', async () => {
      await insertRows(CONSUMER, 'expired-', 5, Math.floor(clock.nowMs() / 1000) - 1);

      expect(await store.deleteExpiredRows(3)).toEqual({ deleted: 3, more: true });
      expect(await store.deleteExpiredRows(3)).toEqual({ deleted: 2, more: false });
      expect(await countRows(db, 'inbox')).toBe(0);
    });

    it(`deletes at most ${EXPIRED_ROWS_PER_DELETE} rows a statement`, async () => {
      await insertRows(CONSUMER, 'expired-', 2_500, Math.floor(clock.nowMs() / 1000) - 1);
      const pool = recordingPool(db);

      expect(await postgresStore(db, clock, { pool }).deleteExpiredRows(10_000)).toEqual({
        deleted: 2_500,
        more: false,
      });
      expect(pool.statements.filter((text) => text.startsWith('DELETE'))).toHaveLength(3);
      expect(await countRows(db, 'inbox')).toBe(0);
    });
  });
});
