/**
 * The port through which `msk-inbox outbox ...` reads and republishes a consumer's unpublished events
 * (docs/operate.md#outbox), whichever store holds them: the DynamoDB outbox table (dynamodb-outbox.ts) or
 * the Postgres schema's outbox tables (postgres-outbox.ts). `consumer` undefined means every consumer's.
 */
import type { UserError } from '../cli/user-error.js';

/** One key's unpublished events, summed. */
export interface PendingKey {
  readonly consumer: string;
  readonly topic: string;
  /** The Kafka key, whole. */
  readonly key: string;
  readonly events: number;
  /** UTF-8 bytes of their values, key and headers (what `pending_bytes` counts). */
  readonly bytes: number;
  /** Epoch ms the oldest of them committed (or was republished), when known. */
  readonly oldestAtMs: number | undefined;
  /** The id of the key's first event: the one the relay publishes next, and what `republish` touches. */
  readonly headId: string | undefined;
}

export interface PendingListing {
  /** Oldest first, at most the filter's limit. */
  readonly keys: readonly PendingKey[];
  /** Over every key that matched, shown or not. */
  readonly total: {
    readonly keys: number;
    readonly events: number;
    readonly bytes: number;
    readonly oldestAtMs: number | undefined;
  };
}

export interface QuarantinedOutboxEvent {
  readonly id: string;
  readonly consumer: string;
  readonly topic: string;
  readonly key: string;
  readonly reason: string;
  readonly error: string;
  readonly quarantinedAtMs: number | undefined;
  /** The dedup key of the event whose effect emitted it. */
  readonly source: string | undefined;
}

export interface QuarantinedListing {
  /** Oldest quarantine first, at most the filter's limit. */
  readonly events: readonly QuarantinedOutboxEvent[];
  /** Every match, shown or not. */
  readonly total: number;
}

export interface OutboxFilter {
  readonly consumer: string | undefined;
  readonly limit: number;
}

/** Where an event is, by its id. */
export interface OutboxEventPlace {
  readonly id: string;
  readonly consumer: string;
  readonly topic: string;
  readonly key: string;
}

/** What `republish` did, or why it did nothing. */
export type RepublishOutcome =
  /** Out of quarantine, at the end of its key's queue, behind `ahead` of the key's events (when read). */
  | { readonly kind: 'republished'; readonly event: OutboxEventPlace; readonly ahead: number | undefined }
  /** Pending in a queue row the stream should have brought to the relay: the row touched (DynamoDB). */
  | { readonly kind: 'touched'; readonly event: OutboxEventPlace; readonly pending: number }
  /** Pending, and the relay finds it without help (Postgres: it polls). */
  | { readonly kind: 'pending'; readonly event: OutboxEventPlace }
  /** The row changed between the read and the write (the relay, a consumer, another operator). */
  | { readonly kind: 'changed'; readonly event: OutboxEventPlace; readonly detail: string }
  /** The key's queue is at its back-pressure limit: the append would pass it. */
  | { readonly kind: 'full'; readonly event: OutboxEventPlace }
  | { readonly kind: 'unknown' };

export interface OperatorOutbox {
  /** Where the events are, for messages: `outbox table orders-outbox`, `schema msk_inbox at db:5432/app`. */
  describe(): string;
  pendingKeys(filter: OutboxFilter): Promise<PendingListing>;
  quarantined(filter: OutboxFilter): Promise<QuarantinedListing>;
  /**
   * A quarantined event back at the END of its key's queue, in one transaction with its removal from
   * quarantine, conditional on the quarantine row being as read; a pending one is handed to the relay
   * again where the store needs it. `nowMs` is its new commit time, as the relay measures its lag.
   */
  republish(id: string, consumer: string | undefined, nowMs: number): Promise<RepublishOutcome>;
  /** The store's failure as one line with its fix, where a person can fix it; else undefined. */
  advice(error: unknown): UserError | undefined;
  close(): Promise<void>;
}

/** Runs `work`; a failure of the store with a known fix becomes a UserError naming it. */
export async function withOutboxAdvice<T>(outbox: OperatorOutbox, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw outbox.advice(error) ?? error;
  }
}

/** The RFC 9562 text form every outbox event id has (outboxEventId): anything else is a typo. */
export const EVENT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Keys oldest first (the one waiting longest leads), cut to `limit`, with totals over all of them. */
export function sortedListing(keys: readonly PendingKey[], limit: number): PendingListing {
  const sorted = [...keys].sort(
    (a, b) =>
      (a.oldestAtMs ?? Number.MAX_SAFE_INTEGER) - (b.oldestAtMs ?? Number.MAX_SAFE_INTEGER) ||
      a.consumer.localeCompare(b.consumer) ||
      a.topic.localeCompare(b.topic) ||
      a.key.localeCompare(b.key),
  );
  const known = sorted.flatMap((key) => (key.oldestAtMs === undefined ? [] : [key.oldestAtMs]));
  return {
    keys: sorted.slice(0, limit),
    total: {
      keys: sorted.length,
      events: sorted.reduce((sum, key) => sum + key.events, 0),
      bytes: sorted.reduce((sum, key) => sum + key.bytes, 0),
      oldestAtMs: known.length === 0 ? undefined : Math.min(...known),
    },
  };
}
