/**
 * The faults a store's client boundary can meet, by store: what a schedule (schedule.ts) draws for the
 * store under test, and what its fault injection (fault-injection.ts for DynamoDB,
 * postgres-fault-injection.ts for Postgres) makes of each.
 */
import type { Mode } from './mode.js';

/** The inbox store a schedule runs against. */
export type SoakStoreKind = 'dynamodb' | 'postgres';

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

/** Where in a Postgres transaction a process dies when the transaction does not land. */
export type TransactionStage = 'after-inbox-insert' | 'after-effect-sql' | 'before-commit';

/** A fault of the store's client: the SDK's (DynamoDB) or the `pg` driver's (Postgres). */
export interface StoreFaultPlan {
  readonly kind: SdkFaultKind | PostgresFaultKind;
  /**
   * Where it strikes. DynamoDB: the attempt's nth SDK request (retries included) and the `burst - 1` after
   * it. Postgres: from the attempt's nth statement on, the next `burst` statements the fault can hit (a
   * COMMIT-only fault waits for the next COMMIT).
   */
  readonly atCall: number;
  readonly burst: number;
}

/** The client faults each store's schedules draw from, by mode. */
export const STORE_FAULTS: Record<SoakStoreKind, Record<Mode, readonly StoreFaultPlan['kind'][]>> = {
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
};

export const TRANSACTION_STAGES: readonly TransactionStage[] = [
  'after-inbox-insert',
  'after-effect-sql',
  'before-commit',
];
