/** What one schedule run reports: its violations, the faults that fired and its figures (types only). */
import type { Redis } from 'ioredis';
import type { OutcomeStatus } from '../../lambdas/core/outcome.js';
import type { OutboxFigures } from './outbox-relay-run.js';
import type { PostgresConnections } from './postgres-connections.js';
import type { ServerRestarts } from './redis-server-restarts.js';
import type { Schedule, SoakStoreKind } from './schedule.js';

/** DynamoDB Local, with the inbox and the sample's tables every schedule shares. */
export interface DynamoDbSoakTarget {
  readonly store?: 'dynamodb';
  readonly endpoint: string;
  readonly inboxTableName: string;
  readonly appTableName: string;
}

/** A Postgres server, with the inbox's schema (migrated) and the sample's tables every schedule shares. */
export interface PostgresSoakTarget {
  readonly store: 'postgres';
  readonly connections: PostgresConnections;
  /** The inbox's tables (lambdas/postgres/schema.ts). */
  readonly inboxSchema: string;
  /** The sample's accounts and orders (sample/order-consumer/order-placed-sql.ts). */
  readonly appSchema: string;
  /** A table and trigger of the soak's own that refuse a COMMIT (postgres-soak-setup.ts). */
  readonly faultSchema: string;
}

/** A Redis server every schedule shares, each schedule's keys under its own consumer name. */
export interface RedisSoakTarget {
  readonly store: 'redis';
  /** `redis://host:port`: each execution environment connects its own client there. */
  readonly url: string;
  /** The soak's own client, without faults: it seeds rows, reads the end state, and waits out a restart. */
  readonly harness: Redis;
  /** Restarts of the server, when the soak started it (a server at --url is not the soak's to restart). */
  readonly restarts?: ServerRestarts;
}

export type SoakTarget = DynamoDbSoakTarget | PostgresSoakTarget | RedisSoakTarget;

export function storeOf(target: SoakTarget): SoakStoreKind {
  return target.store ?? 'dynamodb';
}

export interface Violation {
  readonly seed: number;
  readonly invariant: string;
  readonly detail: string;
}

/** Why a side-effect was applied and not recorded as completed: each such application runs again. */
export type WindowCause =
  /** The planned crash right after the external call. */
  | 'crash-after-effect'
  /** A crash at a random write (another partition's, running meanwhile) between effect and completion. */
  | 'crash-at-random-write'
  /** Any other crash between effect and completion. */
  | 'crash-elsewhere'
  /** Lambda ended the invocation at its deadline between effect and completion. */
  | 'timed-out'
  /** The completion write failed (throttling or an outage outlasting the SDK's retries). */
  | 'completion-write-failed'
  /** The external service applied the call but answered with a timeout: the engine released the claim. */
  | 'external-timeout-after-apply'
  /** Another attempt took the lease over (only beyond the skew bound). */
  | 'lease-lost';

export interface ScheduleFigures {
  readonly events: number;
  readonly records: number;
  readonly producerDuplicates: number;
  readonly payloadConflicts: number;
  readonly malformedRecords: number;
  readonly seededRows: number;
  readonly invocations: number;
  readonly deliveredRecords: number;
  readonly settleRounds: number;
  readonly finalOutcomes: Partial<Record<OutcomeStatus, number>>;
  /** Side-effect mode: calls the external service applied. */
  readonly effectApplications: number;
  /** Side-effect mode: applications beyond the first per event (the window's cost). */
  readonly extraApplications: number;
  readonly windowHits: Partial<Record<WindowCause, number>>;
  /** Side-effect mode: two live attempts inside the effect for one key (only beyond the skew bound). */
  readonly concurrentRuns: number;
  /** Claims (or commits) that took a key over from another holder's lease once it ran out. */
  readonly leaseTakeovers: number;
  /** Applied transactions that committed more than one record (group commit), and the records they carried. */
  readonly groupCommits: number;
  readonly groupedRecords: number;
}

export interface ScheduleResult {
  readonly seed: number;
  readonly mode: Schedule['mode'];
  readonly beyondBound: boolean;
  readonly violations: Violation[];
  /** Faults that fired, by kind. */
  readonly faults: Record<string, number>;
  readonly figures: ScheduleFigures;
  /** Outbox schedules: what the relay published (outbox-relay-run.ts). */
  readonly outbox?: OutboxFigures;
  readonly trace: string[];
}
