/**
 * The operator's inbox in DynamoDB (operator-inbox.ts): the consumer's rows in the inbox table. A row
 * leaves the sparse `quarantine` index when its index keys are removed; the row itself stays, for audit,
 * with what was done to it. A parked row is a copy under `<consumer>!replaying#<id>`. Every write to a row
 * an operator read is conditional on its status and replay count being as read.
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
  failedBatchRowKey,
  FAILED_BATCH_ATTRIBUTES as L,
  OPERATOR_ATTRIBUTES as O,
  OPERATOR_STATUS,
  QUARANTINE_INDEX,
  quarantineRowKey,
  readDedupRow,
  replayingRowKey,
} from '../lambdas/core/inbox-rows.js';
import { type QuarantineRow, readQuarantineRow } from '../lambdas/core/quarantine-row.js';
import { type AdviceTarget, adviceFor } from './aws-errors.js';
import type { UserError } from './cli/user-error.js';
import {
  type BatchReplay,
  type ReplayLog,
  readReplayLogItem,
  replayOutcomes,
} from './failed-batches/replay-log.js';
import type { Discard, ListFilter, OperatorInbox, QuarantineListing } from './operator-inbox.js';

export interface DynamoDbInboxTarget {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly consumer: string;
  /** `--endpoint` and the region, for the advice's messages. */
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  /**
   * What a consumer run here (`--handler`) needs besides INBOX_TABLE_NAME to reach the same table: the
   * endpoint and whom to sign as (local-handler.ts).
   */
  readonly handlerVariables?: Readonly<Record<string, string>>;
}

export class DynamoDbOperatorInbox implements OperatorInbox {
  readonly consumer: string;
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #advice: AdviceTarget;
  readonly #handlerVariables: Readonly<Record<string, string>>;

  constructor(target: DynamoDbInboxTarget) {
    this.consumer = target.consumer;
    this.#client = target.client;
    this.#tableName = target.tableName;
    this.#advice = { tableName: target.tableName, endpoint: target.endpoint, region: target.region };
    this.#handlerVariables = target.handlerVariables ?? {};
  }

  describe(): string {
    return `table ${this.#tableName}`;
  }

  /** Rows newest first, from the sparse index (which the parked copies of QUARANTINED rows stay in). */
  async listQuarantined(filter: ListFilter): Promise<QuarantineListing> {
    const rows: QuarantineRow[] = [];
    const countsByReason: Record<string, number> = {};
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          IndexName: QUARANTINE_INDEX.name,
          KeyConditionExpression:
            filter.sinceMs === undefined
              ? '#consumer = :consumer'
              : '#consumer = :consumer AND #at >= :since',
          ...(filter.reason === undefined ? {} : { FilterExpression: '#reason = :reason' }),
          ExpressionAttributeNames: {
            '#consumer': QUARANTINE_INDEX.partitionKey,
            ...(filter.sinceMs === undefined ? {} : { '#at': QUARANTINE_INDEX.sortKey }),
            ...(filter.reason === undefined ? {} : { '#reason': A.reason }),
          },
          ExpressionAttributeValues: {
            ':consumer': this.consumer,
            ...(filter.sinceMs === undefined ? {} : { ':since': filter.sinceMs }),
            ...(filter.reason === undefined ? {} : { ':reason': filter.reason }),
          },
          ScanIndexForward: false,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const row = readQuarantineRow(this.consumer, item);
        countsByReason[row.reason] = (countsByReason[row.reason] ?? 0) + 1;
        if (filter.limit === undefined || rows.length < filter.limit) rows.push(row);
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return { rows, countsByReason };
  }

  async quarantineRow(id: string): Promise<QuarantineRow | undefined> {
    const item = await this.#getItem(quarantineRowKey(this.consumer, id));
    return item === undefined ? undefined : readQuarantineRow(this.consumer, item);
  }

  async parkedRow(id: string): Promise<QuarantineRow | undefined> {
    const item = await this.#getItem(replayingRowKey(this.consumer, id));
    return item === undefined ? undefined : readQuarantineRow(this.consumer, item);
  }

  async dedupRow(dedupKey: string): Promise<DedupRow | undefined> {
    const item = await this.#getItem(dedupRowKey(this.consumer, dedupKey));
    return item === undefined ? undefined : readDedupRow(item);
  }

  async discard(row: QuarantineRow, by: Discard): Promise<boolean> {
    const condition = unchanged(row);
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: quarantineRowKey(this.consumer, row.id) },
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

  /** The copy under replayingRowKey, still in the index, and the row's own key deleted. */
  async park(row: QuarantineRow): Promise<boolean> {
    const condition = unchanged(row);
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.#tableName,
                Item: { ...row.item, [A.pk]: replayingRowKey(this.consumer, row.id) },
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': A.pk },
              },
            },
            {
              Delete: {
                TableName: this.#tableName,
                Key: { [A.pk]: quarantineRowKey(this.consumer, row.id) },
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

  async unpark(id: string, item: Readonly<Record<string, unknown>>): Promise<void> {
    await this.#client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.#tableName,
              Item: { ...item, [A.pk]: quarantineRowKey(this.consumer, id) },
            },
          },
          { Delete: { TableName: this.#tableName, Key: { [A.pk]: replayingRowKey(this.consumer, id) } } },
        ],
      }),
    );
  }

  async readReplayLog(name: string): Promise<ReplayLog | undefined> {
    const item = await this.#getItem(failedBatchRowKey(this.consumer, name));
    return item === undefined ? undefined : readReplayLogItem(item);
  }

  async recordReplay(
    batch: { readonly name: string; readonly objectKey: string },
    replay: BatchReplay,
  ): Promise<void> {
    const outcomes = replayOutcomes(replay);
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#tableName,
        Key: { [A.pk]: failedBatchRowKey(this.consumer, batch.name) },
        UpdateExpression:
          'SET #key = :key, #first = if_not_exists(#first, :at), #at = :at, #by = :by, #counts = :counts, #runs = :runs, #notes = :notes ADD #attempts :one',
        ExpressionAttributeNames: {
          '#key': L.objectKey,
          '#first': L.firstReplayedAt,
          '#at': L.replayedAt,
          '#by': L.replayedBy,
          '#counts': L.counts,
          '#runs': L.runs,
          '#notes': L.notes,
          '#attempts': L.replayAttempts,
        },
        ExpressionAttributeValues: {
          ':key': batch.objectKey,
          ':at': replay.atMs,
          ':by': replay.by,
          ':counts': outcomes.counts,
          ':runs': outcomes.runs,
          ':notes': outcomes.notes,
          ':one': 1,
        },
      }),
    );
  }

  advice(error: unknown): UserError | undefined {
    return adviceFor(this.#advice, error);
  }

  consumerEnvironment() {
    return {
      variables: { INBOX_TABLE_NAME: this.#tableName, ...this.#handlerVariables },
      flags: { INBOX_TABLE_NAME: '--table' },
    };
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  async #getItem(pk: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: { [A.pk]: pk }, ConsistentRead: true }),
    );
    return Item;
  }
}

/** The condition that the row is still as `row` was read: same status, same replay count. */
function unchanged(row: QuarantineRow) {
  return {
    ConditionExpression: '#status = :status AND (attribute_not_exists(#attempts) OR #attempts = :attempts)',
    names: { '#status': A.status, '#attempts': O.replayAttempts },
    values: { ':status': row.status, ':attempts': row.replayAttempts },
  };
}
