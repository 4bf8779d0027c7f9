/**
 * The operator's reads and writes on the inbox table's quarantine rows (docs/operate.md). A row leaves the
 * sparse `quarantine` index when its index keys are removed; the row itself stays, for audit, with what
 * was done to it. Every write is conditional on the row being as it was read, so two operators (or an
 * operator and the consumer) never overwrite each other silently.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  INBOX_ATTRIBUTES as A,
  type DedupRow,
  dedupRowKey,
  isExpired,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
  QUARANTINE_INDEX,
  quarantineRowKey,
  readDedupRow,
  replayingRowKey,
} from '../lambdas/core/inbox-rows.js';
import { type QuarantineRow, readQuarantineRow } from '../lambdas/core/quarantine-row.js';

export interface QuarantineTarget {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly consumer: string;
}

export interface ListFilter {
  readonly reason?: string;
  readonly sinceMs?: number;
  /** Rows returned at most; the counts cover every match. */
  readonly limit?: number;
}

/** Quarantined rows newest first, from the sparse index, with the count of every match per reason. */
export async function listQuarantined(
  target: QuarantineTarget,
  filter: ListFilter,
): Promise<{ readonly rows: QuarantineRow[]; readonly countsByReason: Record<string, number> }> {
  const rows: QuarantineRow[] = [];
  const countsByReason: Record<string, number> = {};
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await target.client.send(
      new QueryCommand({
        TableName: target.tableName,
        IndexName: QUARANTINE_INDEX.name,
        KeyConditionExpression:
          filter.sinceMs === undefined ? '#consumer = :consumer' : '#consumer = :consumer AND #at >= :since',
        ...(filter.reason === undefined ? {} : { FilterExpression: '#reason = :reason' }),
        ExpressionAttributeNames: {
          '#consumer': QUARANTINE_INDEX.partitionKey,
          ...(filter.sinceMs === undefined ? {} : { '#at': QUARANTINE_INDEX.sortKey }),
          ...(filter.reason === undefined ? {} : { '#reason': A.reason }),
        },
        ExpressionAttributeValues: {
          ':consumer': target.consumer,
          ...(filter.sinceMs === undefined ? {} : { ':since': filter.sinceMs }),
          ...(filter.reason === undefined ? {} : { ':reason': filter.reason }),
        },
        ScanIndexForward: false,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const row = readQuarantineRow(target.consumer, item);
      countsByReason[row.reason] = (countsByReason[row.reason] ?? 0) + 1;
      if (filter.limit === undefined || rows.length < filter.limit) rows.push(row);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { rows, countsByReason };
}

/**
 * The row with this id. A copy moved aside by a replay that did not finish comes first: replaying it
 * finishes that replay, folding in a row the record may have been quarantined under meanwhile.
 */
export async function getRow(target: QuarantineTarget, id: string): Promise<QuarantineRow | undefined> {
  const item =
    (await getItem(target, replayingRowKey(target.consumer, id))) ??
    (await getItem(target, quarantineRowKey(target.consumer, id)));
  return item === undefined ? undefined : readQuarantineRow(target.consumer, item);
}

export async function getItem(
  target: QuarantineTarget,
  pk: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await target.client.send(
    new GetCommand({ TableName: target.tableName, Key: { [A.pk]: pk }, ConsistentRead: true }),
  );
  return Item;
}

/** The consumer's dedup row for a key: COMPLETED once a record with that key was applied. */
export async function dedupRow(target: QuarantineTarget, dedupKey: string): Promise<DedupRow | undefined> {
  const item = await getItem(target, dedupRowKey(target.consumer, dedupKey));
  return item === undefined ? undefined : readDedupRow(item);
}

/**
 * The dedup row as the consumer sees it at `nowMs`: an expired row (isExpired, the claim condition's own
 * test) is absent to it, though DynamoDB's TTL deletes it only later, so a record under its key would be
 * applied again (docs/design.md#the-claim-condition).
 */
export async function liveDedupRow(
  target: QuarantineTarget,
  dedupKey: string,
  nowMs: number,
): Promise<DedupRow | undefined> {
  const row = await dedupRow(target, dedupKey);
  return row === undefined || isExpired(row, Math.floor(nowMs / 1_000)) ? undefined : row;
}

/** The condition that the row is still as `row` was read: same status, same replay count. */
function unchanged(row: QuarantineRow) {
  return {
    ConditionExpression: '#status = :status AND (attribute_not_exists(#attempts) OR #attempts = :attempts)',
    names: { '#status': A.status, '#attempts': O.replayAttempts },
    values: { ':status': row.status, ':attempts': row.replayAttempts },
  };
}

/** Marks a quarantined row discarded and takes it out of the index; false when it changed meanwhile. */
export async function discardRow(
  target: QuarantineTarget,
  row: QuarantineRow,
  by: { readonly who: string; readonly why: string; readonly nowMs: number },
): Promise<boolean> {
  const condition = unchanged(row);
  try {
    await target.client.send(
      new UpdateCommand({
        TableName: target.tableName,
        Key: { [A.pk]: quarantineRowKey(target.consumer, row.id) },
        UpdateExpression:
          'SET #status = :discarded, #since = :since, #at = :now, #by = :by, #why = :why REMOVE #ic, #iat',
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeNames: {
          ...condition.names,
          '#since': O.quarantinedSince,
          '#at': O.discardedAt,
          '#by': O.discardedBy,
          '#why': O.discardReason,
          '#ic': A.quarantineConsumer,
          '#iat': A.quarantinedAt,
        },
        ExpressionAttributeValues: {
          ...condition.values,
          ':discarded': OPERATOR_STATUS.discarded,
          ':since': row.quarantinedAt ?? null,
          ':now': by.nowMs,
          ':by': by.who,
          ':why': by.why,
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Moves the row aside for a replay, in one transaction: a copy under replayingRowKey (still in the index, so
 * a replay that dies half way leaves the record listed) and the row's own key free, so a record
 * quarantined again writes a fresh row with its new reason. False when the row changed meanwhile.
 */
export async function parkRow(target: QuarantineTarget, row: QuarantineRow): Promise<boolean> {
  const condition = unchanged(row);
  try {
    await target.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: target.tableName,
              Item: { ...row.item, [A.pk]: replayingRowKey(target.consumer, row.id) },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': A.pk },
            },
          },
          {
            Delete: {
              TableName: target.tableName,
              Key: { [A.pk]: quarantineRowKey(target.consumer, row.id) },
              ConditionExpression: condition.ConditionExpression,
              ExpressionAttributeNames: condition.names,
              ExpressionAttributeValues: condition.values,
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'TransactionCanceledException') return false;
    throw error;
  }
}

/** Puts `item` back under the row's own key (absent, or the row a replay just wrote) and drops the copy. */
export async function unparkRow(
  target: QuarantineTarget,
  id: string,
  item: Record<string, unknown>,
): Promise<void> {
  await target.client.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: target.tableName,
            Item: { ...item, [A.pk]: quarantineRowKey(target.consumer, id) },
          },
        },
        { Delete: { TableName: target.tableName, Key: { [A.pk]: replayingRowKey(target.consumer, id) } } },
      ],
    }),
  );
}

/** The item without the index keys, so the row leaves the `quarantine` index but stays for audit. */
export function outOfIndex(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [A.quarantineConsumer]: _consumer, [A.quarantinedAt]: at, ...rest } = item;
  return { ...rest, [O.quarantinedSince]: at ?? rest[O.quarantinedSince] ?? null };
}
