/**
 * The operator's outbox in DynamoDB (operator-outbox.ts), on the rows of lambdas/core/outbox-rows.ts:
 * queue rows are listed by a consistent Scan of their prefix, quarantine rows likewise or read by key.
 * A republish appends with the consumer's own builder (outboxQueueAppend) and deletes the quarantine row
 * in one TransactWriteItems, so the event is always in exactly one of the two (docs/operate.md#outbox).
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { eventBytes, outboxQueueAppend } from '../../lambdas/core/outbox-appends.js';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_EVENT_FIELDS as F,
  OUTBOX_CHANGE,
  outboxQuarantineKey,
  outboxRowPrefix,
} from '../../lambdas/core/outbox-rows.js';
import { type AdviceTarget, adviceFor } from '../aws-errors.js';
import { UserError } from '../cli/user-error.js';
import {
  type OperatorOutbox,
  type OutboxEventPlace,
  type OutboxFilter,
  type PendingKey,
  type PendingListing,
  type QuarantinedListing,
  type QuarantinedOutboxEvent,
  type RepublishOutcome,
  sortedListing,
} from './operator-outbox.js';

type Item = Record<string, unknown>;

export interface DynamoDbOutboxTarget extends AdviceTarget {
  readonly client: DynamoDBDocumentClient;
}

export class DynamoDbOperatorOutbox implements OperatorOutbox {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #advice: AdviceTarget;

  constructor(target: DynamoDbOutboxTarget) {
    this.#client = target.client;
    this.#tableName = target.tableName;
    this.#advice = { tableName: target.tableName, endpoint: target.endpoint, region: target.region };
  }

  describe(): string {
    return `outbox table ${this.#tableName}`;
  }

  async pendingKeys(filter: OutboxFilter): Promise<PendingListing> {
    const keys: PendingKey[] = [];
    for await (const item of this.#scan(outboxRowPrefix('queue', filter.consumer))) {
      const events = eventsOf(item);
      // The relay deletes a row it emptied; one left empty holds nothing to list.
      if (events.length === 0) continue;
      const place = placeOf(item);
      keys.push({
        ...place,
        events: events.length,
        bytes: Number(item[A.pendingBytes] ?? 0),
        oldestAtMs: numberOf(item[A.oldestAt]) ?? numberOf(events[0]?.[F.committedAt]),
        headId: String(events[0]?.[F.id]),
      });
    }
    return sortedListing(keys, filter.limit);
  }

  async quarantined(filter: OutboxFilter): Promise<QuarantinedListing> {
    const events: QuarantinedOutboxEvent[] = [];
    for await (const item of this.#scan(outboxRowPrefix('quarantine', filter.consumer))) {
      events.push(quarantinedOf(item));
    }
    events.sort((a, b) => (a.quarantinedAtMs ?? 0) - (b.quarantinedAtMs ?? 0) || a.id.localeCompare(b.id));
    return { events: events.slice(0, filter.limit), total: events.length };
  }

  async republish(id: string, consumer: string | undefined, nowMs: number): Promise<RepublishOutcome> {
    const quarantine = await this.#quarantineItem(id, consumer);
    if (quarantine !== undefined) return this.#republishQuarantined(quarantine, nowMs);
    for await (const item of this.#scan(outboxRowPrefix('queue', consumer))) {
      const index = eventsOf(item).findIndex((event) => event[F.id] === id);
      if (index >= 0) return this.#touch(item, id, index, nowMs);
    }
    return { kind: 'unknown' };
  }

  advice(error: unknown): UserError | undefined {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') {
      const { endpoint, region } = this.#advice;
      const where = endpoint === undefined ? `in ${region ?? 'the default region'}` : `at ${endpoint}`;
      return new UserError(
        `outbox table ${this.#tableName} not found ${where}: check --outbox-table, --region or --endpoint`,
        { cause: error },
      );
    }
    return adviceFor(this.#advice, error);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  /**
   * The event at the END of its key's queue (the key's later events go first: docs/outbox.md) and its
   * quarantine row deleted, in one transaction; the delete holds only while the row is as read.
   */
  async #republishQuarantined(item: Item, nowMs: number): Promise<RepublishOutcome> {
    const place = quarantinedOf(item);
    const event = item[A.event] as Item;
    const value = event[F.value] as string | Uint8Array;
    const headers = (event[F.headers] ?? {}) as Record<string, string>;
    const append = outboxQueueAppend({
      tableName: this.#tableName,
      consumer: place.consumer,
      topic: place.topic,
      key: place.key,
      // Committed now, as a republish on Postgres is: the relay's lag counts from here.
      events: [{ ...event, [F.committedAt]: nowMs }],
      bytes: eventBytes({ topic: place.topic, key: place.key, value, headers }),
      nowMs,
    });
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            append,
            {
              Delete: {
                TableName: this.#tableName,
                Key: { [A.pk]: item[A.pk] },
                ConditionExpression: '#change = :quarantined AND #at = :at AND #event.#id = :id',
                ExpressionAttributeNames: {
                  '#change': A.change,
                  '#at': A.quarantinedAt,
                  '#event': A.event,
                  '#id': F.id,
                },
                ExpressionAttributeValues: {
                  ':quarantined': OUTBOX_CHANGE.quarantined,
                  ':at': item[A.quarantinedAt],
                  ':id': place.id,
                },
              },
            },
          ],
        }),
      );
    } catch (error) {
      const [queue, quarantine] = (error as { CancellationReasons?: { Code?: string }[] })
        .CancellationReasons ?? [undefined, undefined];
      if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
      if (quarantine?.Code === 'ConditionalCheckFailed') {
        return { kind: 'changed', event: place, detail: 'its quarantine row changed since it was read' };
      }
      if (queue?.Code === 'ConditionalCheckFailed') return { kind: 'full', event: place };
      if ([queue?.Code, quarantine?.Code].includes('TransactionConflict')) {
        return { kind: 'changed', event: place, detail: 'another write to its rows was under way' };
      }
      throw error;
    }
    const { Item: row } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [A.pk]: append.Update.Key[A.pk] },
        ConsistentRead: true,
      }),
    );
    const index = row === undefined ? -1 : eventsOf(row).findIndex((e) => e[F.id] === place.id);
    return { kind: 'republished', event: place, ahead: index >= 0 ? index : undefined };
  }

  /**
   * A change to the queue row whose new image says `appended`, so its stream invokes the relay again for
   * events the stream no longer holds (kept 24 hours). It must change data: an update that changes
   * nothing writes no stream record (docs/aws-facts.md#the-outbox-relays-stream-and-msk-writes).
   */
  async #touch(item: Item, id: string, index: number, nowMs: number): Promise<RepublishOutcome> {
    const place = { id, ...placeOf(item) };
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: item[A.pk] },
          UpdateExpression: 'SET #change = :appended, #touchedAt = :now',
          // Still pending where it was read: the relay has not published (or quarantined) it meanwhile.
          ConditionExpression: `#events[${index}].#id = :id`,
          ExpressionAttributeNames: {
            '#change': A.change,
            '#touchedAt': A.touchedAt,
            '#events': A.events,
            '#id': F.id,
          },
          ExpressionAttributeValues: { ':appended': OUTBOX_CHANGE.appended, ':now': nowMs, ':id': id },
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      return { kind: 'changed', event: place, detail: 'the relay took events from its queue meanwhile' };
    }
    return { kind: 'touched', event: place, pending: eventsOf(item).length };
  }

  async #quarantineItem(id: string, consumer: string | undefined): Promise<Item | undefined> {
    if (consumer !== undefined) {
      const { Item } = await this.#client.send(
        new GetCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: outboxQuarantineKey(consumer, id) },
          ConsistentRead: true,
        }),
      );
      return Item;
    }
    for await (const item of this.#scan(outboxRowPrefix('quarantine'))) {
      if ((item[A.event] as Item | undefined)?.[F.id] === id) return item;
    }
    return undefined;
  }

  /** Every row whose key starts with `prefix`, read consistently, page by page. */
  async *#scan(prefix: string): AsyncGenerator<Item> {
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.#client.send(
        new ScanCommand({
          TableName: this.#tableName,
          ConsistentRead: true,
          FilterExpression: 'begins_with(#pk, :prefix)',
          ExpressionAttributeNames: { '#pk': A.pk },
          ExpressionAttributeValues: { ':prefix': prefix },
          ExclusiveStartKey,
        }),
      );
      yield* page.Items ?? [];
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
}

function eventsOf(item: Item): Item[] {
  return (item[A.events] as Item[] | undefined) ?? [];
}

function placeOf(item: Item): Omit<OutboxEventPlace, 'id'> {
  return {
    consumer: String(item[A.consumer]),
    topic: String(item[A.topic]),
    key: String(item[A.kafkaKey]),
  };
}

function quarantinedOf(item: Item): QuarantinedOutboxEvent {
  const event = (item[A.event] ?? {}) as Item;
  return {
    id: String(event[F.id]),
    ...placeOf(item),
    reason: String(item[A.reason] ?? ''),
    error: String(item[A.error] ?? ''),
    quarantinedAtMs: numberOf(item[A.quarantinedAt]),
    source: event[F.source] === undefined ? undefined : String(event[F.source]),
  };
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
