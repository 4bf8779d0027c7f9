import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { boundedString } from './bounded-text.js';
import type { Clock } from './clock.js';
import {
  cancellationOutcome,
  conditionFailureRow,
  groupCancellation,
  idempotentCancellation,
  isNamed,
  messageOf,
  storeError,
} from './dynamodb-refusals.js';
import type { EffectWrite, Lease, SqlEffect } from './effect.js';
import { INBOX_ATTRIBUTES as A, dedupRowKey, INBOX_STATUS } from './inbox-rows.js';
import {
  type ClaimResult,
  type CommitGroupOptions,
  type CommitMember,
  type CommitResult,
  classifyExistingRow,
  type IdempotentResult,
  type InboxEntry,
  type InboxStore,
  type QuarantineEntry,
  stopsGroup,
} from './inbox-store.js';
import { QUARANTINE_LIMITS, quarantineItem, quarantineRowPk } from './quarantine-row.js';
import { classifyStoreFailure } from './store-failure.js';

export interface DynamoDbInboxStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Scopes every row, so consumers of one topic can share a table. */
  readonly consumer: string;
  /** Dedup window: rows count as absent after it, even before TTL deletes them. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
}

/**
 * A row is free to take when absent, expired, or IN_PROGRESS under an expired lease. Expired rows must be
 * matched explicitly: TTL deletion is lazy and expired items still show up in conditions. `expires_at <
 * :nowSeconds` is isExpired (inbox-rows.ts) as a condition: readers of a row judge it by that predicate.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html
 */
const CLAIMABLE =
  'attribute_not_exists(#pk) OR #expiresAt < :nowSeconds OR (#status = :inProgress AND #leaseUntil < :nowMs)';

const CLAIMABLE_NAMES = {
  '#pk': A.pk,
  '#expiresAt': A.expiresAt,
  '#status': A.status,
  '#leaseUntil': A.leaseUntil,
};

/**
 * A `sql` plan given to the DynamoDB store: the consumer's setup is wrong (it plans SQL without choosing a
 * SQL store), so every record fails alike; reported, never quarantined.
 */
const SQL_NEEDS_SQL_STORE: CommitResult = {
  kind: 'effect-failed',
  reason: 'systemic-store-error',
  message:
    "a `sql` plan needs a SQL store: createInboxConsumer({ store: postgresInbox() }) from 'msk-inbox/postgres'",
};

/** The one place that talks to DynamoDB: maps SDK errors and failed conditions to inbox outcomes. */
export class DynamoDbInboxStore implements InboxStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #consumer: string;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;

  constructor(options: DynamoDbInboxStoreOptions) {
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#consumer = options.consumer;
    this.#ttlSeconds = options.ttlSeconds;
    this.#clock = options.clock;
  }

  async commit(entry: InboxEntry, writes: readonly EffectWrite[], sql?: SqlEffect): Promise<CommitResult> {
    if (sql !== undefined) return SQL_NEEDS_SQL_STORE;
    const inboxPut = this.#completedPut(entry, this.#clock.nowMs());
    try {
      if (writes.length === 0) {
        // Nothing to make atomic: a conditional put costs half a transaction.
        await this.#client.send(new PutCommand(inboxPut));
      } else {
        await this.#client.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: inboxPut }, ...(writes as EffectWrite[])] as never,
            // Makes the SDK's own retry of this call (after a timeout) idempotent for 10 minutes.
            ClientRequestToken: randomUUID(),
          }),
        );
      }
      return { kind: 'committed' };
    } catch (error) {
      const existing = conditionFailureRow(error);
      if (existing) return classifyExistingRow(existing, entry.payloadHash);
      if (isNamed(error, 'TransactionCanceledException'))
        return cancellationOutcome(error, entry.payloadHash, writes);
      if (classifyStoreFailure(error) === 'permanent') return { kind: 'rejected', message: messageOf(error) };
      throw storeError('commit', error);
    }
  }

  /**
   * One TransactWriteItems for the whole group. When DynamoDB cancels it, the reasons (in action order, the
   * failed inbox condition with the row it found) settle the members they name, as `commit` would; the
   * rest, blameless, go again in one more request, except those after a member whose answer may leave it
   * reported (`stopsGroup`): they are `not-sent`. A conflict or throttling answers every open member as
   * transient; a refusal of the request (validation) commits the open members one by one, in order, so each
   * gets its own answer, up to the first that stops the group.
   */
  async commitGroup(members: readonly CommitMember[], options?: CommitGroupOptions): Promise<CommitResult[]> {
    const results: (CommitResult | undefined)[] = members.map(() => undefined);
    let open = members.map((_, index) => index);
    // A `sql` member has no place in a TransactWriteItems: one by one, so it is refused in its turn.
    const oneByOne = members.some((member) => member.sql !== undefined);
    let requests = 0;
    /** Before a request after the first: past the deadline margin, the open members are not sent. */
    const stopped = (): boolean => {
      if (requests++ === 0 || options?.mayContinue?.() !== false) return false;
      for (const index of open) results[index] ??= { kind: 'not-sent', reason: 'deadline' };
      return true;
    };
    while (open.length > 1 && !oneByOne) {
      if (stopped()) return results as CommitResult[];
      const nowMs = this.#clock.nowMs();
      /** Per action: its member and its write index (-1: the inbox row). */
      const owners: [member: number, write: number][] = [];
      const actions: unknown[] = [];
      for (const index of open) {
        const member = members[index] as CommitMember;
        actions.push({ Put: this.#completedPut(member.entry, nowMs) });
        owners.push([index, -1]);
        member.writes.forEach((write, writeIndex) => {
          actions.push(write);
          owners.push([index, writeIndex]);
        });
      }
      try {
        await this.#client.send(
          new TransactWriteCommand({ TransactItems: actions as never, ClientRequestToken: randomUUID() }),
        );
        for (const index of open) results[index] = { kind: 'committed' };
        return results as CommitResult[];
      } catch (error) {
        const settled = groupCancellation(error, owners, members);
        if (settled === 'one-by-one') break;
        if (settled.kind === 'transient') {
          for (const index of open) results[index] = settled;
          return results as CommitResult[];
        }
        for (const [index, result] of settled.results) results[index] = result;
        // Nothing after a member that may end reported is sent: a partition applies in offset order.
        const stop = members.findIndex((_, index) => {
          const result = results[index];
          return result !== undefined && stopsGroup(result);
        });
        if (stop >= 0) {
          // Whatever the reasons said of them: a later member is not settled before an earlier one is.
          for (let later = stop + 1; later < members.length; later++) results[later] = { kind: 'not-sent' };
        }
        open = open.filter((index) => results[index] === undefined);
      }
    }
    for (const index of open) {
      if (stopped()) break;
      const member = members[index] as CommitMember;
      const result = await this.commit(member.entry, member.writes, member.sql);
      results[index] = result;
      if (stopsGroup(result)) {
        for (const later of open.filter((other) => other > index)) results[later] = { kind: 'not-sent' };
        break;
      }
    }
    return results as CommitResult[];
  }

  /**
   * One request, no inbox row: a single write as PutItem, UpdateItem or DeleteItem, several as one
   * TransactWriteItems (atomic; DynamoDB bills 2 write units per KB of each item in it). A failed
   * condition is the plan's guard: the record was applied before, or is stale.
   */
  async applyIdempotent(writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    const [only] = writes;
    try {
      if (writes.length === 1 && only !== undefined) await sendSingleWrite(this.#client, only);
      else {
        await this.#client.send(
          new TransactWriteCommand({ TransactItems: writes as never, ClientRequestToken: randomUUID() }),
        );
      }
      return { kind: 'applied' };
    } catch (error) {
      if (isNamed(error, 'ConditionalCheckFailedException'))
        return { kind: 'guard-failed', writeIndex: 0, message: messageOf(error) };
      if (isNamed(error, 'TransactionCanceledException')) return idempotentCancellation(error);
      if (classifyStoreFailure(error) === 'permanent') return { kind: 'rejected', message: messageOf(error) };
      throw storeError('idempotent write', error);
    }
  }

  async claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult> {
    const nowMs = this.#clock.nowMs();
    const token = randomUUID();
    const lease: Lease = { dedupKey: entry.dedupKey, token, leaseUntilMs };
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            ...this.#baseRow(entry, nowMs),
            [A.status]: INBOX_STATUS.inProgress,
            [A.leaseOwner]: token,
            [A.leaseUntil]: leaseUntilMs,
          },
          ...this.#claimCondition(nowMs),
        }),
      );
      return { kind: 'claimed', lease };
    } catch (error) {
      const existing = conditionFailureRow(error);
      // The SDK retried a claim whose first try was applied (its answer was lost): the row is this claim's.
      if (existing?.leaseOwner === token) return { kind: 'claimed', lease };
      if (existing) return classifyExistingRow(existing, entry.payloadHash);
      throw storeError('claim', error);
    }
  }

  async complete(lease: Lease): Promise<'completed' | 'lease-lost'> {
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: dedupRowKey(this.#consumer, lease.dedupKey) },
          UpdateExpression:
            'SET #status = :completed, #completedAt = :nowMs, #completedBy = :token REMOVE #leaseOwner, #leaseUntil',
          // Fenced: an attempt whose lease was taken over can never overwrite the newer attempt's row. The SDK's
          // retry of this very completion (its answer lost) finds the row completed by this token.
          ConditionExpression: '#leaseOwner = :token OR #completedBy = :token',
          ExpressionAttributeNames: {
            '#status': A.status,
            '#completedAt': A.completedAt,
            '#completedBy': A.completedBy,
            '#leaseOwner': A.leaseOwner,
            '#leaseUntil': A.leaseUntil,
          },
          ExpressionAttributeValues: {
            ':completed': INBOX_STATUS.completed,
            ':nowMs': this.#clock.nowMs(),
            ':token': lease.token,
          },
        }),
      );
      return 'completed';
    } catch (error) {
      if (isNamed(error, 'ConditionalCheckFailedException')) return 'lease-lost';
      throw storeError('complete', error);
    }
  }

  async release(lease: Lease): Promise<'released' | 'lease-lost'> {
    try {
      await this.#client.send(
        new DeleteCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: dedupRowKey(this.#consumer, lease.dedupKey) },
          ConditionExpression: '#leaseOwner = :token',
          ExpressionAttributeNames: { '#leaseOwner': A.leaseOwner },
          ExpressionAttributeValues: { ':token': lease.token },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'released';
    } catch (error) {
      if (isNamed(error, 'ConditionalCheckFailedException')) {
        // No row left (the SDK retried this very release after its answer was lost): nobody holds the key.
        return (error as { Item?: unknown }).Item ? 'lease-lost' : 'released';
      }
      throw storeError('release', error);
    }
  }

  async quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          // Bounded field by field: it fits whatever the record (quarantine-row.ts).
          Item: quarantineItem(this.#consumer, entry, this.#clock.nowMs(), this.#ttlSeconds),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': A.pk },
        }),
      );
      return 'quarantined';
    } catch (error) {
      if (isNamed(error, 'ConditionalCheckFailedException')) return 'already-quarantined';
      throw storeError('quarantine', error);
    }
  }

  async isQuarantined(coordinates: string): Promise<boolean> {
    try {
      const { Item } = await this.#client.send(
        new GetCommand({
          TableName: this.#tableName,
          Key: { [A.pk]: quarantineRowPk(this.#consumer, coordinates) },
          ProjectionExpression: '#pk',
          ExpressionAttributeNames: { '#pk': A.pk },
          ConsistentRead: true,
        }),
      );
      return Item !== undefined;
    } catch (error) {
      throw storeError('quarantine lookup', error);
    }
  }

  #baseRow(entry: InboxEntry, nowMs: number): Record<string, unknown> {
    return {
      [A.pk]: dedupRowKey(this.#consumer, entry.dedupKey),
      // TTL is epoch seconds.
      [A.expiresAt]: Math.floor(nowMs / 1000) + this.#ttlSeconds,
      [A.payloadHash]: entry.payloadHash,
      // The topic is the producer's text: bounded like a quarantine key, so the row always fits.
      [A.source]: boundedString(entry.source, QUARANTINE_LIMITS.keyBytes).text,
    };
  }

  #completedPut(entry: InboxEntry, nowMs: number) {
    return {
      TableName: this.#tableName,
      Item: { ...this.#baseRow(entry, nowMs), [A.status]: INBOX_STATUS.completed, [A.completedAt]: nowMs },
      ...this.#claimCondition(nowMs),
    };
  }

  #claimCondition(nowMs: number) {
    return {
      ConditionExpression: CLAIMABLE,
      ExpressionAttributeNames: CLAIMABLE_NAMES,
      ExpressionAttributeValues: {
        ':nowSeconds': Math.floor(nowMs / 1000),
        ':nowMs': nowMs,
        ':inProgress': INBOX_STATUS.inProgress,
      },
      // The failed condition says why (duplicate, conflict, live lease) without a read.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
  }
}

/** A write of an `idempotent` plan sent on its own: the same action as in a transaction, as its own request. */
async function sendSingleWrite(client: DynamoDBDocumentClient, write: EffectWrite): Promise<void> {
  if ('Put' in write) await client.send(new PutCommand(write.Put as PutCommandInput));
  else if ('Update' in write) await client.send(new UpdateCommand(write.Update as UpdateCommandInput));
  else if ('Delete' in write) await client.send(new DeleteCommand(write.Delete as DeleteCommandInput));
  // The shape rules (idempotent-writes.ts) refuse a plan of ConditionChecks alone.
  else throw new Error('a ConditionCheck alone writes nothing');
}
