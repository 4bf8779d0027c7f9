/**
 * One queue row's pending events: published in list order (the order their effects committed), then
 * taken out of the row. A send Kafka refuses for good quarantines the event and the key's next events go
 * on, so a poison event never blocks its key or its stream shard (docs/outbox.md#poison-events). A send
 * that may pass later stops the row: what was already acknowledged is removed, the rest waits for the
 * stream record's retry.
 */
import { publishedOf, publishInOrder } from './publish-in-order.js';
import type { Publisher } from './publisher.js';
import { type OutboxTable, type RemovalResult, removeSettled, type Settled } from './queue-removal.js';
import type { PendingEvent, QueueRow } from './queue-row.js';

export interface RowRelayDeps {
  readonly table: OutboxTable;
  readonly publisher: Publisher;
  readonly nowMs: () => number;
}

/** What one row's relay did, for the batch's metrics. */
export interface RowReport {
  /** Events Kafka acknowledged. */
  readonly published: readonly PendingEvent[];
  readonly removal: RemovalResult;
}

/** A row's removal failed after its sends: the sends stand (their events are published again later). */
export class RowRemovalError extends Error {
  readonly published: readonly PendingEvent[];
  constructor(pk: string, published: readonly PendingEvent[], options: ErrorOptions) {
    super(`the events published from ${pk} could not be removed from it`, options);
    this.name = 'RowRemovalError';
    this.published = published;
  }
}

/** A send failed for now, after `published` were acknowledged (and removed, when that worked). */
export class RowPublishError extends Error {
  readonly published: readonly PendingEvent[];
  readonly removal: RemovalResult | undefined;
  constructor(cause: unknown, published: readonly PendingEvent[], removal: RemovalResult | undefined) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'RowPublishError';
    this.published = published;
    this.removal = removal;
  }
}

/**
 * Publishes `row.events` (what the row holds as far as this invocation knows) and removes them. Throws
 * RowPublishError or RowRemovalError; either way the stream record is to be retried.
 */
export async function relayRow(row: QueueRow, deps: RowRelayDeps): Promise<RowReport> {
  const settled: Settled[] = [];
  try {
    await publishInOrder(row, deps.publisher, settled);
  } catch (error) {
    // Remove what Kafka acknowledged before the failure, so the retry sends only the rest again.
    const removal =
      settled.length > 0
        ? await removeSettled(deps.table, row, settled, deps.nowMs()).catch(() => undefined)
        : undefined;
    throw new RowPublishError(error, publishedOf(settled), removal);
  }
  try {
    return {
      published: publishedOf(settled),
      removal: await removeSettled(deps.table, row, settled, deps.nowMs()),
    };
  } catch (error) {
    throw new RowRemovalError(row.pk, publishedOf(settled), { cause: error });
  }
}
