/**
 * The faults a store's client boundary can meet, by store: what a schedule (schedule.ts) draws for the
 * store under test, and what its fault injection (fault-injection.ts for DynamoDB,
 * postgres-fault-injection.ts for Postgres, redis-fault-injection.ts for Redis) makes of each; and the
 * modes a store's schedules run in.
 */
import type { Mode } from './mode.js';

/** The inbox store a schedule runs against. */
export type SoakStoreKind = 'dynamodb' | 'postgres' | 'redis';

/**
 * The modes a store's schedules are drawn in. Redis serves the side-effect mode only: it cannot commit
 * with a database's writes (docs/redis.md), so its schedules are the side-effect ones.
 */
export const STORE_MODES: Record<SoakStoreKind, readonly Mode[]> = {
  dynamodb: ['transactional', 'side-effect'],
  postgres: ['transactional', 'side-effect'],
  redis: ['side-effect'],
};

/** Faults a real DynamoDB Local cannot produce, injected inside the SDK's retry loop. */
export type SdkFaultKind = 'throttling' | 'server-error' | 'timeout-after-write' | 'transaction-conflict';

/**
 * Faults at the `pg` driver's boundary (postgres-fault-injection.ts), each produced by the server where it
 * can produce it:
 * - statement-timeout: the statement is cancelled by its statement_timeout (SQLSTATE 57014);
 * - serialization-failure, deadlock: the statement fails with 40001 or 40P01, raised by the server;
 * - connection-dropped: the socket is destroyed just before the statement (mid-transaction: rolled back);
 * - answer-lost: a COMMIT (or a write outside a transaction) is applied, then the socket drops before the
 *   answer is read: the client sees a connection error for a write that landed;
 * - commit-refused: COMMIT is refused by a deferred constraint (40001) and the server rolls back.
 */
export type PostgresFaultKind =
  | 'statement-timeout'
  | 'serialization-failure'
  | 'deadlock'
  | 'connection-dropped'
  | 'answer-lost'
  | 'commit-refused';

/**
 * Faults at the Redis client's boundary (redis-fault-injection.ts), with ioredis as the deployed
 * connection runs it (lambdas/redis/redis-connection.ts: a command timeout, no reconnection of a client
 * by itself, a new client for the next command once one ended):
 * - answer-lost: the script ran on the server, and the answer did not come back in time ("Command timed
 *   out"): the client sees a failure for a write that landed;
 * - not-run: the client's connection is cut before the script is written: it fails unsent ("Connection is
 *   closed."), with every other command the client had in flight;
 * - connection-dropped: the connection is cut as the script goes out: the server runs it (as a rule), and
 *   the client sees it fail with the connection.
 */
export type RedisFaultKind = 'answer-lost' | 'not-run' | 'connection-dropped';

/** Where in a Postgres transaction a process dies when the transaction does not land. */
export type TransactionStage = 'after-inbox-insert' | 'after-effect-sql' | 'before-commit';

/** A fault of the store's client: the SDK's (DynamoDB) or the `pg` driver's (Postgres). */
export interface StoreFaultPlan {
  readonly kind: SdkFaultKind | PostgresFaultKind | RedisFaultKind;
  /**
   * Where it strikes. DynamoDB: the attempt's nth SDK request (retries included) and the `burst - 1` after
   * it. Postgres: from the attempt's nth statement on, the next `burst` statements the fault can hit (a
   * COMMIT-only fault waits for the next COMMIT). Redis: the attempt's nth command and the `burst - 1`
   * after it.
   */
  readonly atCall: number;
  readonly burst: number;
}

/** The client whose boundary a store's faults are injected at, as the soak's figures name it. */
export const STORE_CLIENTS: Record<SoakStoreKind, string> = {
  dynamodb: 'SDK',
  postgres: 'pg',
  redis: 'ioredis',
};

/** The client faults each store's schedules draw from, by mode (of the store's STORE_MODES). */
export const STORE_FAULTS: Record<SoakStoreKind, Partial<Record<Mode, readonly StoreFaultPlan['kind'][]>>> = {
  dynamodb: {
    transactional: ['throttling', 'server-error', 'timeout-after-write', 'transaction-conflict'],
    'side-effect': ['throttling', 'server-error', 'timeout-after-write'],
  },
  postgres: {
    transactional: [
      'statement-timeout',
      'serialization-failure',
      'deadlock',
      'connection-dropped',
      'answer-lost',
      'commit-refused',
    ],
    // No transactions in side-effect mode: claims, completions and releases are single statements.
    'side-effect': [
      'statement-timeout',
      'serialization-failure',
      'deadlock',
      'connection-dropped',
      'answer-lost',
    ],
  },
  redis: { 'side-effect': ['answer-lost', 'not-run', 'connection-dropped'] },
};

/** The client faults of `store`'s schedules in `mode`: a mode the store does not run has none to draw. */
export function storeFaultKinds(store: SoakStoreKind, mode: Mode): readonly StoreFaultPlan['kind'][] {
  const kinds = STORE_FAULTS[store][mode];
  if (kinds === undefined) throw new Error(`${store} runs no ${mode} schedules (STORE_MODES)`);
  return kinds;
}

export const TRANSACTION_STAGES: readonly TransactionStage[] = [
  'after-inbox-insert',
  'after-effect-sql',
  'before-commit',
];
