/**
 * Taking settled events (acknowledged by Kafka, or refused for good and quarantined) out of their queue
 * row, oldest first, each write conditioned on the row still starting with exactly those events
 * (docs/outbox.md#the-relay):
 * - all the row holds: a Delete, conditioned on its size and last id;
 * - a prefix: an Update removing `events[0..k-1]`, conditioned on each removed id at its index, which
 *   also moves `oldest_at` to the next event, lowers `pending_bytes` and sets `change = published`;
 * - with quarantined events among them, the same write in one TransactWriteItems with their quarantine
 *   rows (outbox-quarantine.ts).
 * A failed condition means the row changed since it was read (a consumer appended, something else
 * removed): the row is read again, consistently, and whatever prefix of it is settled is removed. An
 * event that is not settled is never removed, so nothing unacknowledged leaves the outbox.
 */
import {
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_EVENT_FIELDS as F, OUTBOX_CHANGE } from '../core/outbox-rows.js';
import { quarantinePut } from './outbox-quarantine.js';
import type { Settled as SettledEvent } from './publish-in-order.js';
import { type PendingEvent, type QueueRow, readQueueRow } from './queue-row.js';

export interface OutboxTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** An event of a queue row the relay is done with: published, or to be quarantined. */
export type Settled = SettledEvent<PendingEvent>;

export interface RemovalResult {
  /** Settled ids no longer in the row: removed here, or found gone. */
  readonly gone: ReadonlySet<string>;
  /** Settled ids whose quarantine row this removal wrote. */
  readonly quarantined: readonly string[];
  /** Settled ids left in the row, behind an event that is not settled (published again later). */
  readonly left: readonly string[];
}

/**
 * Events per write. Each costs about 20 characters of condition and 8 of update expression, against
 * DynamoDB's 4 KB per expression; a TransactWriteItems takes 100 actions (docs/aws-facts.md#dynamodb).
 */
export const MAX_EVENTS_PER_REMOVAL = 50;
/** Rows read again after failed conditions before the record is reported instead. */
const MAX_REREADS = 5;

export class QueueRaceError extends Error {
  constructor(pk: string) {
    super(`${pk} kept changing under ${MAX_REREADS} removals in a row; the record is retried`);
    this.name = 'QueueRaceError';
  }
}

/**
 * Removes `settled` from the row. `row.events` is what the row is believed to hold (its image, less what
 * this invocation already removed); `settled` must be in the row's order.
 */
export async function removeSettled(
  table: OutboxTable,
  row: QueueRow,
  settled: readonly Settled[],
  nowMs: number,
): Promise<RemovalResult> {
  const byId = new Map(settled.map((entry) => [entry.event.id, entry]));
  const gone = new Set<string>();
  const quarantined: string[] = [];
  let believed = row.events;
  let rereads = 0;
  for (;;) {
    const todo = settledPrefix(believed, byId, gone);
    if (todo.length === 0) break;
    const chunk = todo.slice(0, MAX_EVENTS_PER_REMOVAL);
    try {
      await writeRemoval(table, row, believed, chunk, nowMs);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (++rereads > MAX_REREADS) throw new QueueRaceError(row.pk);
      believed = (await readRow(table, row.pk))?.events ?? [];
      const present = new Set(believed.map((event) => event.id));
      for (const id of byId.keys()) if (!present.has(id)) gone.add(id);
      continue;
    }
    for (const entry of chunk) {
      gone.add(entry.event.id);
      if (entry.quarantine) quarantined.push(entry.event.id);
    }
    believed = believed.slice(chunk.length);
  }
  return { gone, quarantined, left: [...byId.keys()].filter((id) => !gone.has(id)) };
}

/** The row as it is now (a consistent read), or undefined when it is gone. */
export async function readRow(table: OutboxTable, pk: string): Promise<QueueRow | undefined> {
  const { Item } = await table.client.send(
    new GetItemCommand({ TableName: table.tableName, Key: { [A.pk]: { S: pk } }, ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const row = readQueueRow(Item);
  if ('problem' in row) throw new Error(`${pk} cannot be read: ${row.problem}`);
  return row;
}

/** The longest prefix of the row's events that are settled and not yet gone. */
function settledPrefix(
  events: readonly PendingEvent[],
  byId: ReadonlyMap<string, Settled>,
  gone: ReadonlySet<string>,
): Settled[] {
  const prefix: Settled[] = [];
  for (const event of events) {
    const entry = byId.get(event.id);
    if (!entry || gone.has(event.id)) break;
    prefix.push(entry);
  }
  return prefix;
}

async function writeRemoval(
  table: OutboxTable,
  row: QueueRow,
  believed: readonly PendingEvent[],
  chunk: readonly Settled[],
  nowMs: number,
): Promise<void> {
  const queueWrite =
    chunk.length === believed.length ? deleteRow(chunk) : removePrefix(believed, chunk, nowMs);
  const key = { [A.pk]: { S: row.pk } };
  const puts = chunk.flatMap((entry) =>
    entry.quarantine ? [quarantinePut(table.tableName, row, entry.event, entry.quarantine, nowMs)] : [],
  );
  if (puts.length === 0) {
    await table.client.send(
      queueWrite.kind === 'delete'
        ? new DeleteItemCommand({ TableName: table.tableName, Key: key, ...queueWrite.input })
        : new UpdateItemCommand({ TableName: table.tableName, Key: key, ...queueWrite.input }),
    );
    return;
  }
  const queueAction: TransactWriteItem =
    queueWrite.kind === 'delete'
      ? { Delete: { TableName: table.tableName, Key: key, ...queueWrite.input } }
      : { Update: { TableName: table.tableName, Key: key, ...queueWrite.input } };
  await table.client.send(
    new TransactWriteItemsCommand({ TransactItems: [...puts.map((Put) => ({ Put })), queueAction] }),
  );
}

interface Conditioned {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, { S: string } | { N: string }>;
}

type QueueWrite =
  | { readonly kind: 'delete'; readonly input: Conditioned }
  | { readonly kind: 'update'; readonly input: Conditioned & { UpdateExpression: string } };

/** The whole list: the row goes, if it still holds exactly these (appends only add at the end). */
function deleteRow(chunk: readonly Settled[]): QueueWrite {
  const last = chunk[chunk.length - 1] as Settled;
  return {
    kind: 'delete',
    input: {
      ConditionExpression: `size(#events) = :count AND #events[${chunk.length - 1}].#id = :lastId`,
      ExpressionAttributeNames: { '#events': A.events, '#id': F.id },
      ExpressionAttributeValues: { ':count': { N: String(chunk.length) }, ':lastId': { S: last.event.id } },
    },
  };
}

/** A prefix: each removed id checked at its index; DynamoDB applies REMOVE's indexes to the list as read. */
function removePrefix(
  believed: readonly PendingEvent[],
  chunk: readonly Settled[],
  nowMs: number,
): QueueWrite {
  const values: Record<string, { S: string } | { N: string }> = {
    ':published': { S: OUTBOX_CHANGE.published },
    ':nextAt': { N: String(believed[chunk.length]?.committedAt ?? nowMs) },
    ':minus': { N: String(-chunk.reduce((sum, entry) => sum + entry.event.bytes, 0)) },
  };
  chunk.forEach((entry, index) => {
    values[`:id${index}`] = { S: entry.event.id };
  });
  return {
    kind: 'update',
    input: {
      UpdateExpression: `REMOVE ${chunk.map((_, index) => `#events[${index}]`).join(', ')} SET #change = :published, #oldestAt = :nextAt ADD #pendingBytes :minus`,
      ConditionExpression: chunk.map((_, index) => `#events[${index}].#id = :id${index}`).join(' AND '),
      ExpressionAttributeNames: {
        '#events': A.events,
        '#id': F.id,
        '#change': A.change,
        '#oldestAt': A.oldestAt,
        '#pendingBytes': A.pendingBytes,
      },
      ExpressionAttributeValues: values,
    },
  };
}

/** A failed condition on the queue row, alone or as the last action of a transaction (the puts have none). */
function isConditionFailure(error: unknown): boolean {
  const { name, CancellationReasons } = (error ?? {}) as {
    name?: string;
    CancellationReasons?: { Code?: string }[];
  };
  if (name === 'ConditionalCheckFailedException') return true;
  return (
    name === 'TransactionCanceledException' &&
    CancellationReasons?.[CancellationReasons.length - 1]?.Code === 'ConditionalCheckFailed'
  );
}
