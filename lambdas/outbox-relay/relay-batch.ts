/**
 * One invocation of the relay: the stream records in order, each row's pending events published and
 * removed (row-relay.ts). Lambda's partial batch response for streams retries from the lowest sequence
 * number reported, so the loop stops at the first record that failed and reports it alone: the records
 * after it come again anyway (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html).
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '../core/clock.js';
import { UnreportableRecordError } from '../core/errors.js';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE } from '../core/outbox-rows.js';
import type { PublishedIds } from './published-ids.js';
import type { Publisher } from './publisher.js';
import type { OutboxTable } from './queue-removal.js';
import { itemOfStreamImage, type PendingEvent, readQueueRow } from './queue-row.js';
import { RowPublishError, RowRemovalError, relayRow } from './row-relay.js';

export interface RelayLog {
  warn(message: string, details: Record<string, unknown>): void;
  error(message: string, details: Record<string, unknown>): void;
}

export interface RelayBatchDeps {
  readonly table: OutboxTable;
  readonly publisher: Publisher;
  readonly clock: Clock;
  readonly log: RelayLog;
  /** The invocation's time left (Lambda's context). @default no deadline */
  readonly remainingMs?: () => number;
  /** What this container published and removed in earlier invocations (published-ids.ts). @default none */
  readonly publishedIds?: PublishedIds;
}

export interface RelaySummary {
  readonly records: number;
  /** Records that are no append (the stream filter should keep them away). */
  skipped: number;
  malformedRows: number;
  published: number;
  quarantined: number;
  publishFailures: number;
  storeFailures: number;
  /** The record reported for retry, if any. */
  failedSequenceNumber: string | undefined;
  publishLagMs: number | undefined;
  oldestPendingAgeMs: number | undefined;
}

/**
 * No record after the first is started with less time left: a send's retries and a removal fit in it. The
 * first always runs, so a function whose timeout is under the margin still moves on (and at worst times
 * out, which retries the batch).
 */
export const DEADLINE_MARGIN_MS = 10_000;

export async function relayBatch(
  event: DynamoDBStreamEvent,
  deps: RelayBatchDeps,
): Promise<{ readonly response: DynamoDBBatchResponse; readonly summary: RelaySummary }> {
  const records = event?.Records;
  if (!Array.isArray(records)) throw new UnreportableRecordError('not a DynamoDB stream event: no Records');
  const summary: RelaySummary = {
    records: records.length,
    skipped: 0,
    malformedRows: 0,
    published: 0,
    quarantined: 0,
    publishFailures: 0,
    storeFailures: 0,
    failedSequenceNumber: undefined,
    publishLagMs: undefined,
    oldestPendingAgeMs: undefined,
  };
  // Ids this invocation took out of the outbox: a later record's image still lists them.
  const gone = new Set<string>();
  // A row's latest image in the batch lists every event of its earlier images not yet removed, in order:
  // the row is relayed once, from that image, where it first appears; its later records add nothing.
  const latest = new Map<string, DynamoDBRecord>();
  for (const record of records) {
    const pk = record.dynamodb?.Keys?.[A.pk]?.S;
    if (pk !== undefined) latest.set(pk, record);
  }
  const relayed = new Set<string>();
  for (const [index, record] of records.entries()) {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (!sequenceNumber) throw new UnreportableRecordError('a stream record has no SequenceNumber');
    const pk = record.dynamodb?.Keys?.[A.pk]?.S;
    if (pk !== undefined && relayed.has(pk)) {
      summary.skipped += 1;
      continue;
    }
    if (index > 0 && deps.remainingMs && deps.remainingMs() < DEADLINE_MARGIN_MS) {
      summary.failedSequenceNumber = sequenceNumber;
      break;
    }
    if (pk !== undefined) relayed.add(pk);
    // Reported at its first record on failure: Lambda retries from there, the later records with it.
    if (!(await relayRecord((pk !== undefined && latest.get(pk)) || record, deps, gone, summary))) {
      summary.failedSequenceNumber = sequenceNumber;
      break;
    }
  }
  const failed = summary.failedSequenceNumber;
  return { response: { batchItemFailures: failed ? [{ itemIdentifier: failed }] : [] }, summary };
}

/** False when the record is to be retried. */
async function relayRecord(
  record: DynamoDBRecord,
  deps: RelayBatchDeps,
  gone: Set<string>,
  summary: RelaySummary,
): Promise<boolean> {
  const image = record.dynamodb?.NewImage;
  if (!image || record.eventName === 'REMOVE' || image[A.change]?.S !== OUTBOX_CHANGE.appended) {
    summary.skipped += 1;
    return true;
  }
  const row = readQueueRow(itemOfStreamImage(image));
  if ('problem' in row) {
    // Retrying cannot mend it and would block the shard: counted (alarmed on) and left for an operator.
    summary.malformedRows += 1;
    deps.log.error('queue row skipped: unreadable', { pk: image[A.pk]?.S, problem: row.problem });
    return true;
  }
  const nowMs = deps.clock.nowMs();
  if (row.oldestAt !== undefined)
    summary.oldestPendingAgeMs = max(summary.oldestPendingAgeMs, nowMs - row.oldestAt);
  const pending = row.events.filter(
    (pendingEvent) => !gone.has(pendingEvent.id) && !deps.publishedIds?.has(pendingEvent.id, nowMs),
  );
  if (pending.length === 0) return true;
  try {
    const report = await relayRow({ ...row, events: pending }, { ...deps, nowMs: () => deps.clock.nowMs() });
    count(summary, report.published, deps.clock.nowMs());
    for (const id of report.removal.gone) gone.add(id);
    rememberPublished(deps, report.published, report.removal.gone);
    summary.quarantined += report.removal.quarantined.length;
    if (report.removal.left.length > 0) {
      deps.log.warn('published events left in their queue row behind an unsettled one', {
        pk: row.pk,
        ids: report.removal.left,
      });
    }
    return true;
  } catch (error) {
    if (error instanceof RowPublishError) {
      count(summary, error.published, deps.clock.nowMs());
      for (const id of error.removal?.gone ?? []) gone.add(id);
      rememberPublished(deps, error.published, error.removal?.gone ?? []);
      summary.quarantined += error.removal?.quarantined.length ?? 0;
      summary.publishFailures += 1;
      deps.log.warn('send failed for now; the record is retried', { pk: row.pk, error: error.message });
    } else {
      if (error instanceof RowRemovalError) count(summary, error.published, deps.clock.nowMs());
      summary.storeFailures += 1;
      deps.log.error('outbox table failed; the record is retried', { pk: row.pk, error: describe(error) });
    }
    return false;
  }
}

/**
 * Published and removed: later invocations of this container skip them in older images. Quarantined ids
 * are not kept (an operator may put them back).
 */
function rememberPublished(
  deps: RelayBatchDeps,
  published: readonly PendingEvent[],
  gone: Iterable<string>,
): void {
  if (!deps.publishedIds) return;
  const removed = new Set(gone);
  const nowMs = deps.clock.nowMs();
  for (const event of published) if (removed.has(event.id)) deps.publishedIds.add(event.id, nowMs);
}

function count(summary: RelaySummary, published: readonly PendingEvent[], nowMs: number): void {
  summary.published += published.length;
  for (const event of published) {
    if (event.committedAt !== undefined)
      summary.publishLagMs = max(summary.publishLagMs, nowMs - event.committedAt);
  }
}

function max(current: number | undefined, value: number): number {
  return current === undefined ? value : Math.max(current, value);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.name}: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
