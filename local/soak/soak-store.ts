/**
 * The store a schedule runs against, behind one port, so the schedules, the driver and every invariant are
 * written once for both: how a new execution environment builds the sample consumer on it (with its client
 * faults), how an earlier run's inbox rows are put there, and what it holds at the end, read back by domain
 * ids (final-state.ts judges it). dynamodb-soak-store.ts, postgres-soak-store.ts and redis-soak-store.ts
 * implement it (Redis for the side-effect schedules only: store-faults.ts#STORE_MODES).
 */
import type { InboxConsumerOptions } from '../../lambdas/core/create-inbox-consumer.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import type { SideEffectStoreChoice } from '../../lambdas/core/store-choice.js';
import type { OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import type { SoakStoreKind } from './schedule.js';

/** The sample consumer's own parts: the same schema and skip on both stores, the effect in the store's terms. */
export type OrderConsumer = Required<
  Pick<InboxConsumerOptions<typeof OrderPlaced>, 'schema' | 'skip' | 'effect'>
>;

/**
 * createInboxConsumer's options choosing the store: the DynamoDB client, or `store: postgresInbox(...)`;
 * or a store that keeps no database's writes (`redisInbox(...)`), whose consumer's effect may only call
 * or skip.
 */
export type StoreOptions =
  | Pick<InboxConsumerOptions, 'dynamoDb' | 'store'>
  | { readonly sideEffectStore: SideEffectStoreChoice };

/** What one execution environment's handler is built from on a store. */
export interface StoreContainer {
  readonly consumer: OrderConsumer;
  readonly storeOptions: StoreOptions;
  /** Settings the store needs (the inbox table's name on DynamoDB). */
  readonly settings: Partial<HandlerSettings>;
  /** The environment is gone (crashed, or a companion's round is over): its connections close. */
  retire(): Promise<void>;
}

/** An inbox row as an earlier run left it: the attributes of lambdas/core/inbox-rows.ts#INBOX_ATTRIBUTES. */
export interface SeededInboxRow {
  readonly dedupKey: string;
  readonly status: string;
  readonly expires_at: number;
  readonly payload_hash: string;
  readonly source: string;
  readonly lease_owner?: string;
  readonly lease_until?: number;
}

/** What a schedule's consumer left in the store, by the ids the workload chose. */
export interface StoredState {
  /** Dedup rows by dedup key. */
  readonly dedupRows: ReadonlyMap<string, { readonly status: string; readonly payloadHash: string }>;
  /** Coordinates (`topic-partition@offset`) with a QUARANTINED row. */
  readonly quarantined: ReadonlySet<string>;
  /** The sample's order totals by order id, and account balances by account id (absent: never written). */
  readonly orderTotals: ReadonlyMap<string, number>;
  readonly balances: ReadonlyMap<string, number>;
}

export interface StoredStateQuery {
  readonly consumer: string;
  readonly dedupKeys: readonly string[];
  readonly quarantinedCoordinates: readonly string[];
  readonly orderIds: readonly string[];
  readonly accountIds: readonly string[];
}

/**
 * Deliberate breakage, for the harness's own tests only: proves the invariants can fail.
 * - unconditional-claim: claims and commits are sent without their condition (no dedup at all).
 */
export type StoreMutation = 'unconditional-claim';

/** One schedule's view of the store under test. */
export interface SoakStore {
  readonly kind: SoakStoreKind;
  /** A new execution environment (a Lambda container) on the store. */
  container(consumer: string, partitionConcurrency: number): StoreContainer;
  seed(consumer: string, row: SeededInboxRow): Promise<void>;
  read(query: StoredStateQuery): Promise<StoredState>;
  /** The schedule is over: every client it opened is closed. */
  close(): Promise<void>;
}
