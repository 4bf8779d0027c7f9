import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lambdas/core/clock.js';
import type { EffectWrite, Lease } from '../../lambdas/core/effect.js';
import { INBOX_STATUS, type InboxStatus } from '../../lambdas/core/inbox-item.js';
import {
  type ClaimResult,
  type CommitResult,
  classifyExistingRow,
  type InboxEntry,
  type InboxStore,
  type QuarantineEntry,
} from '../../lambdas/core/inbox-store.js';

interface MemoryRow {
  status: InboxStatus;
  payloadHash: string;
  source: string;
  expiresAtSeconds: number;
  leaseOwner?: string;
  leaseUntilMs?: number;
}

type Operation = 'commit' | 'claim' | 'complete' | 'release' | 'quarantine' | 'isQuarantined';

/**
 * The inbox's semantics in memory, for processor unit tests with no I/O. The DynamoDB store is tested
 * for the same behaviours against DynamoDB Local. `failOn` makes chosen keys throw, as an outage would.
 */
export class MemoryInboxStore implements InboxStore {
  readonly rows = new Map<string, MemoryRow>();
  readonly quarantined = new Map<string, QuarantineEntry>();
  readonly committedWrites = new Map<string, readonly EffectWrite[]>();
  readonly calls: { operation: Operation; key: string }[] = [];
  failOn: (operation: Operation, key: string) => Error | undefined = () => undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds = 604_800,
  ) {}

  async commit(entry: InboxEntry, writes: readonly EffectWrite[]): Promise<CommitResult> {
    this.#enter('commit', entry.dedupKey);
    const existing = this.#blocking(entry.dedupKey);
    if (existing) return classifyExistingRow(existing, entry.payloadHash);
    this.rows.set(entry.dedupKey, { ...this.#row(entry), status: INBOX_STATUS.completed });
    this.committedWrites.set(entry.dedupKey, writes);
    return { kind: 'committed' };
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
    if (row?.leaseOwner !== lease.token) return 'lease-lost';
    this.rows.set(lease.dedupKey, {
      ...row,
      status: INBOX_STATUS.completed,
      leaseOwner: undefined,
      leaseUntilMs: undefined,
    });
    return 'completed';
  }

  async release(lease: Lease): Promise<'released' | 'lease-lost'> {
    this.#enter('release', lease.dedupKey);
    if (this.rows.get(lease.dedupKey)?.leaseOwner !== lease.token) return 'lease-lost';
    this.rows.delete(lease.dedupKey);
    return 'released';
  }

  async quarantine(entry: QuarantineEntry): Promise<'quarantined' | 'already-quarantined'> {
    this.#enter('quarantine', entry.coordinates);
    if (this.quarantined.has(entry.coordinates)) return 'already-quarantined';
    this.quarantined.set(entry.coordinates, entry);
    return 'quarantined';
  }

  async isQuarantined(coordinates: string): Promise<boolean> {
    this.#enter('isQuarantined', coordinates);
    return this.quarantined.has(coordinates);
  }

  #enter(operation: Operation, key: string): void {
    this.calls.push({ operation, key });
    const error = this.failOn(operation, key);
    if (error) throw error;
  }

  /** The row that makes the claim condition fail, if any (expired rows and leases count as absent). */
  #blocking(key: string) {
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
    };
  }

  #row(entry: InboxEntry) {
    return {
      payloadHash: entry.payloadHash,
      source: entry.source,
      expiresAtSeconds: Math.floor(this.clock.nowMs() / 1000) + this.ttlSeconds,
    };
  }
}
