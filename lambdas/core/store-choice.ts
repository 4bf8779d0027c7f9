/**
 * Which store holds a consumer's inbox: DynamoDB unless the consumer chooses another in code
 * (`createInboxConsumer({ store: postgresInbox() })`). The choice is an opaque value whose factory hides
 * behind a global symbol, so the public type names nothing of the engine, and a second copy of this
 * package in a bundle still finds it.
 */

import type { Clock } from './clock.js';
import type { InboxStore } from './inbox-store.js';
import type { StoreRequestTracer } from './telemetry/consumer-tracer.js';

/** A store other than DynamoDB that commits with the effect's writes, as `postgresInbox()` returns it. */
export interface InboxStoreChoice {
  /** The store, for logs and errors: `postgres`. */
  readonly storeName: string;
  /** Every plan: a transactional store. */
  readonly effects?: 'all';
}

/**
 * A store that keeps no database's writes, as `redisInbox()` returns it: its consumer's effect may only
 * `call` or `skip`, which createInboxConsumer's types require and its cold start checks.
 */
export interface SideEffectStoreChoice {
  /** The store, for logs and errors: `redis`. */
  readonly storeName: string;
  /** Only `call` and `skip` plans. */
  readonly effects: 'side-effects';
  /** Why it cannot commit with a write: one line, as the consumer says it. */
  readonly whyNoTransactions: string;
}

export type AnyStoreChoice = InboxStoreChoice | SideEffectStoreChoice;

/** What a store is built from, once per execution environment. */
export interface StoreContext {
  readonly consumer: string;
  readonly ttlSeconds: number;
  readonly clock: Clock;
  /**
   * Partitions an invocation processes at once: a pool's size. Key lanes of a partition (ORDERING=key) take
   * turns on their partition's share, so a hot partition cannot take every connection.
   */
  readonly concurrency: number;
  /** Spans of the store's requests, when the consumer traces (telemetry/consumer-tracer.ts). @default none */
  readonly traceRequest?: StoreRequestTracer;
}

export interface StoreFactory {
  create(context: StoreContext): InboxStore;
}

const FACTORY = Symbol.for('msk-inbox.storeFactory');

export function storeChoice(storeName: string, factory: StoreFactory): InboxStoreChoice {
  return withFactory({ storeName }, factory);
}

/** A side-effect store's choice; `whyNoTransactions` is what a transactional plan or setting is told. */
export function sideEffectStoreChoice(
  storeName: string,
  whyNoTransactions: string,
  factory: StoreFactory,
): SideEffectStoreChoice {
  return withFactory({ storeName, effects: 'side-effects', whyNoTransactions }, factory);
}

function withFactory<Choice extends AnyStoreChoice>(choice: Choice, factory: StoreFactory): Choice {
  Object.defineProperty(choice, FACTORY, { value: factory });
  return choice;
}

export function storeFactoryOf(choice: AnyStoreChoice): StoreFactory {
  const factory = (choice as unknown as Record<symbol, StoreFactory | undefined>)[FACTORY];
  if (factory === undefined) {
    throw new TypeError(
      `store: ${String(choice.storeName)} is not a store (use postgresInbox() or leave it out)`,
    );
  }
  return factory;
}

/**
 * The event a schedule sends the consumer's own function to delete expired rows of a store that does not
 * expire them itself (Postgres): the function already holds the connection and its credentials.
 */
export const DELETE_EXPIRED_ROWS_EVENT = { mskInbox: 'delete-expired-rows' } as const;

export function isDeleteExpiredRowsEvent(event: unknown): boolean {
  return (
    typeof event === 'object' &&
    event !== null &&
    (event as Record<string, unknown>).mskInbox === DELETE_EXPIRED_ROWS_EVENT.mskInbox
  );
}
