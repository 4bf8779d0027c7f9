import { randomUUID } from 'node:crypto';
import { boundedString } from '../../lambdas/core/bounded-text.js';
import type { Clock } from '../../lambdas/core/clock.js';
import type { EffectWrite, Lease } from '../../lambdas/core/effect.js';
import { type DedupRow, INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import {
  type ClaimResult,
  type CommitGroupOptions,
  type CommitMember,
  type CommitResult,
  classifyExistingRow,
  type ExistingRow,
  type IdempotentResult,
  type InboxEntry,
  type InboxStore,
  type QuarantineEntry,
  stopsGroup,
} from '../../lambdas/core/inbox-store.js';
import { QUARANTINE_LIMITS } from '../../lambdas/core/quarantine-row.js';

interface MemoryRow {
  status: DedupRow['status'];
  payloadHash: string;
  source: string;
  expiresAtSeconds: number;
  leaseOwner?: string;
  leaseUntilMs?: number;
  /** The token of the lease that completed the row: a retry of that completion answers `completed`. */
  completedBy?: string;
}

type Operation =
  | 'commit'
  | 'applyIdempotent'
  | 'claim'
  | 'complete'
  | 'release'
  | 'quarantine'
  | 'isQuarantined';

/**
 * The inbox's semantics in memory, for processor unit tests with no I/O. The contract suite
 * (test/support/inbox-store-contract.ts) holds it and the DynamoDB store to the same behaviours; what it
 * cannot model (DynamoDB's size limits) the suite runs on DynamoDB only. `failOn` makes chosen keys throw,
 * as an outage would.
 *
 * Effect writes are applied to `appItems`, as far as memory models them: a Put stores its item, a Delete
 * removes it, an Update creates the item (its update expression is not evaluated), a ConditionCheck writes
 * nothing. Conditions are judged before anything is written, as in one TransactWriteItems; memory
 * understands `attribute_exists` and `attribute_not_exists` of a key attribute, and throws on any other
 * condition rather than guess. Every table is keyed by `pk` unless `keyAttributes` says otherwise.
 */
export class MemoryInboxStore implements InboxStore {
  readonly rows = new Map<string, MemoryRow>();
  readonly quarantined = new Map<string, QuarantineEntry>();
  readonly committedWrites = new Map<string, readonly EffectWrite[]>();
  /** Items the committed effect writes left, by table and key (see `appItem`). */
  readonly appItems = new Map<string, Record<string, unknown>>();
  readonly calls: { operation: Operation; key: string }[] = [];
  failOn: (operation: Operation, key: string) => Error | undefined = () => undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds = 604_800,
    private readonly keyAttributes: (tableName: string) => readonly string[] = () => ['pk'],
  ) {}

  /**
   * As DynamoDB answers a group whose members touch distinct items (dynamodb-inbox-store.ts): each member
   * as if committed alone, all conditions judged on the state before the group. It always answers in one
   * request, so it never asks `mayContinue` (asked only before a second request).
   */
  async commitGroup(
    members: readonly CommitMember[],
    _options?: CommitGroupOptions,
  ): Promise<CommitResult[]> {
    // One request: a fault meant for any member fails the whole group before anything is written.
    for (const member of members) {
      const error = this.failOn('commit', member.entry.dedupKey);
      if (error) throw error;
    }
    const results: CommitResult[] = [];
    for (const member of members) {
      // As DynamoDB's store: nothing after a member that may end reported is sent.
      const stopped = results.some(stopsGroup);
      results.push(stopped ? { kind: 'not-sent' } : await this.commit(member.entry, member.writes));
    }
    return results;
  }

  async commit(entry: InboxEntry, writes: readonly EffectWrite[]): Promise<CommitResult> {
    this.#enter('commit', entry.dedupKey);
    const targets = writes.map((write) => this.#target(write));
    // DynamoDB refuses such a request before judging any condition.
    const ids = targets.map((target) => target.id);
    if (new Set(ids).size !== ids.length) {
      return {
        kind: 'rejected',
        message: 'ValidationException: Transaction request cannot include multiple operations on one item',
      };
    }
    const existing = this.#blocking(entry.dedupKey);
    if (existing) return classifyExistingRow(existing, entry.payloadHash);
    const failed = targets.findIndex((target) => !this.#conditionHolds(target));
    if (failed >= 0) {
      return { kind: 'business-rejected', writeIndex: failed, message: 'The conditional request failed' };
    }
    for (const target of targets) this.#apply(target);
    this.rows.set(entry.dedupKey, { ...this.#row(entry), status: INBOX_STATUS.completed });
    this.committedWrites.set(entry.dedupKey, writes);
    return { kind: 'committed' };
  }

  /** As DynamoDB answers an `idempotent` plan: its writes alone, no inbox row; a failed condition is its guard. */
  async applyIdempotent(writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    this.#enter('applyIdempotent', '');
    const targets = writes.map((write) => this.#target(write));
    const failed = targets.findIndex((target) => !this.#conditionHolds(target));
    if (failed >= 0)
      return { kind: 'guard-failed', writeIndex: failed, message: 'The conditional request failed' };
    for (const target of targets) this.#apply(target);
    return { kind: 'applied' };
  }

  async claim(entry: InboxEntry, leaseUntilMs: number): Promise<ClaimResult> {
    this.#enter('claim', entry.dedupKey);
    const existing = this.#blocking(entry.dedupKey);
    if (existing) return classifyExistingRow(existing, entry.payloadHash);
    const token = randomUUID();
    this.rows.set(entry.dedupKey, {
      ...this.#row(entry),
      status: INBOX_STATUS.inProgress,
      leaseOwner: token,
      leaseUntilMs,
    });
    return { kind: 'claimed', lease: { dedupKey: entry.dedupKey, token, leaseUntilMs } };
  }

  async complete(lease: Lease): Promise<'completed' | 'lease-lost'> {
    this.#enter('complete', lease.dedupKey);
    const row = this.rows.get(lease.dedupKey);
    // Fenced by the token alone, not the lease's time; a retry of this very completion finds it done.
    if (!row || (row.leaseOwner !== lease.token && row.completedBy !== lease.token)) return 'lease-lost';
    this.rows.set(lease.dedupKey, {
      ...row,
      status: INBOX_STATUS.completed,
      completedBy: lease.token,
      leaseOwner: undefined,
      leaseUntilMs: undefined,
    });
    return 'completed';
  }

  async release(lease: Lease): Promise<'released' | 'lease-lost'> {
    this.#enter('release', lease.dedupKey);
    const row = this.rows.get(lease.dedupKey);
    // No row: nobody holds the key (a retried release), as the DynamoDB store answers.
    if (!row) return 'released';
    if (row.leaseOwner !== lease.token) return 'lease-lost';
    this.rows.delete(lease.dedupKey);
    return 'released';
  }

  async quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    this.#enter('quarantine', entry.coordinates);
    const key = quarantineKeyPart(entry.coordinates);
    if (this.quarantined.has(key)) return 'already-quarantined';
    this.quarantined.set(key, entry);
    return 'quarantined';
  }

  async isQuarantined(coordinates: string): Promise<boolean> {
    this.#enter('isQuarantined', coordinates);
    return this.quarantined.has(quarantineKeyPart(coordinates));
  }

  /** The item committed effect writes left under this key of `tableName`, if any. */
  appItem(tableName: string, key: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
    return this.appItems.get(itemId(tableName, key));
  }

  #enter(operation: Operation, key: string): void {
    this.calls.push({ operation, key });
    const error = this.failOn(operation, key);
    if (error) throw error;
  }

  /** The row that makes the claim condition fail, if any (expired rows and leases count as absent). */
  #blocking(key: string): ExistingRow | undefined {
    const row = this.rows.get(key);
    const nowMs = this.clock.nowMs();
    if (!row || row.expiresAtSeconds < Math.floor(nowMs / 1000)) return undefined;
    if (row.status === INBOX_STATUS.inProgress && (row.leaseUntilMs ?? 0) < nowMs) return undefined;
    return {
      status: row.status,
      payloadHash: row.payloadHash,
      leaseUntilMs: row.leaseUntilMs,
      source: row.source,
      expiresAtSeconds: row.expiresAtSeconds,
      leaseOwner: row.leaseOwner,
    };
  }

  #row(entry: InboxEntry) {
    return {
      payloadHash: entry.payloadHash,
      // Bounded as the DynamoDB store bounds it.
      source: boundedString(entry.source, QUARANTINE_LIMITS.keyBytes).text,
      expiresAtSeconds: Math.floor(this.clock.nowMs() / 1000) + this.ttlSeconds,
    };
  }

  #target(write: EffectWrite): WriteTarget {
    if ('Put' in write) {
      const { TableName, Item } = write.Put;
      const names = this.keyAttributes(TableName);
      const missing = names.find((name) => Item[name] === undefined);
      // DynamoDB refuses it as a malformed request (systemic): memory does not guess an answer.
      if (missing)
        throw new Error(`MemoryInboxStore: a Put on ${TableName} lacks the key attribute ${missing}`);
      const key = Object.fromEntries(names.map((name) => [name, Item[name]]));
      return { action: 'Put', id: itemId(TableName, key), key, spec: write.Put, item: Item };
    }
    const [action, spec] =
      'Update' in write
        ? (['Update', write.Update] as const)
        : 'Delete' in write
          ? (['Delete', write.Delete] as const)
          : (['ConditionCheck', write.ConditionCheck] as const);
    return { action, id: itemId(spec.TableName, spec.Key), key: spec.Key, spec };
  }

  #conditionHolds(target: WriteTarget): boolean {
    const expression = target.spec.ConditionExpression;
    if (expression === undefined) return true;
    const match = EXISTENCE_CONDITION.exec(expression);
    const operand = match?.[2];
    const name = operand?.startsWith('#') ? target.spec.ExpressionAttributeNames?.[operand] : operand;
    if (!match || name === undefined || !(name in target.key)) {
      throw new Error(
        `MemoryInboxStore cannot judge the condition "${expression}": it models attribute_exists and attribute_not_exists of a key attribute only`,
      );
    }
    const exists = this.appItems.has(target.id);
    return match[1] === 'attribute_exists' ? exists : !exists;
  }

  #apply(target: WriteTarget): void {
    switch (target.action) {
      case 'Put':
        this.appItems.set(target.id, { ...target.item });
        return;
      case 'Update':
        this.appItems.set(target.id, { ...this.appItems.get(target.id), ...target.key });
        return;
      case 'Delete':
        this.appItems.delete(target.id);
        return;
      case 'ConditionCheck':
        return;
    }
  }
}

interface WriteTarget {
  readonly action: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  /** The item's identity: table and key. */
  readonly id: string;
  readonly key: Readonly<Record<string, unknown>>;
  readonly spec: {
    readonly ConditionExpression?: string;
    readonly ExpressionAttributeNames?: Readonly<Record<string, string>>;
  };
  readonly item?: Readonly<Record<string, unknown>>;
}

const EXISTENCE_CONDITION = /^\s*(attribute_exists|attribute_not_exists)\s*\(\s*(#?[A-Za-z0-9_]+)\s*\)\s*$/;

function itemId(tableName: string, key: Readonly<Record<string, unknown>>): string {
  const sorted = Object.keys(key)
    .sort()
    .map((name) => [name, key[name]]);
  return JSON.stringify([tableName, sorted]);
}

/** The quarantine row's key part, bounded as the DynamoDB store bounds it (quarantineRowPk). */
function quarantineKeyPart(coordinates: string): string {
  return boundedString(coordinates, QUARANTINE_LIMITS.keyBytes).text;
}
