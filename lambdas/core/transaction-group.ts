/**
 * What fits one transaction: DynamoDB's limits on a TransactWriteItems and the rule that no two of its
 * actions touch one item. Both group commits use it: a lane's consecutive records (group-commit.ts) and the
 * ready heads of several key lanes (cross-key-commit.ts).
 */
import { type EffectWrite, putItemKey, TRANSACT_WRITE_MAX_ACTIONS } from './effect.js';
import type { CommitMember } from './inbox-store.js';
import { outboxAppendBytes } from './outbox-appends.js';

/** DynamoDB's limits on one TransactWriteItems (docs/aws-facts.md). */
const TRANSACTION_LIMITS = { actions: TRANSACT_WRITE_MAX_ACTIONS, bytes: 4 * 1024 * 1024 } as const;
/** Room kept under 4 MB: sizes are estimated from the request's JSON, not DynamoDB's own accounting. */
const BYTES_BUDGET = TRANSACTION_LIMITS.bytes - 256 * 1024;
/** An inbox row's bytes besides its source and hash: a generous bound. */
const INBOX_ROW_BYTES = 2_048;

/** What one record's commit takes of a transaction. */
export interface Footprint {
  readonly items: readonly string[];
  readonly actions: number;
  readonly bytes: number;
}

/** The records waiting to commit together, and what they already hold of one transaction. */
export class OpenGroup<Member extends CommitMember> {
  readonly #maxRecords: number;
  #members: Member[] = [];
  #items = new Set<string>();
  #actions = 0;
  #bytes = 0;

  constructor(maxRecords: number) {
    this.#maxRecords = maxRecords;
  }

  get empty(): boolean {
    return this.#members.length === 0;
  }

  /** The items the group's members touch. */
  get items(): ReadonlySet<string> {
    return this.#items;
  }

  /**
   * Whether these records may join the group together. An empty group takes anything: the records were cut
   * to fit one transaction where they were gathered, and a single record too large is DynamoDB's to refuse.
   */
  fits(members: readonly Member[]): boolean {
    if (this.empty) return true;
    if (this.#members.length + members.length > this.#maxRecords) return false;
    const footprints = members.map(footprintOf);
    const actions = footprints.reduce((sum, footprint) => sum + footprint.actions, 0);
    if (this.#actions + actions > TRANSACTION_LIMITS.actions) return false;
    const bytes = footprints.reduce((sum, footprint) => sum + footprint.bytes, 0);
    if (this.#bytes + bytes > BYTES_BUDGET) return false;
    return footprints.every((footprint) => footprint.items.every((item) => !this.#items.has(item)));
  }

  add(members: readonly Member[]): void {
    for (const member of members) {
      const footprint = footprintOf(member);
      this.#members.push(member);
      for (const item of footprint.items) this.#items.add(item);
      this.#actions += footprint.actions;
      this.#bytes += footprint.bytes;
    }
  }

  close(): Member[] {
    const members = this.#members;
    this.#members = [];
    this.#items = new Set();
    this.#actions = 0;
    this.#bytes = 0;
    return members;
  }
}

/** Worked out once per record: a group asks again for every record that tries to join it. */
const footprints = new WeakMap<CommitMember, Footprint>();

/**
 * The items a record's commit touches (its inbox row, and each write's table and key) and its size. A Put
 * names no key apart from its item, so its identity is the item's `pk` and `sk` where present, else the
 * whole item; a collision missed that way is refused by DynamoDB, and the store then commits the group one
 * by one.
 */
export function footprintOf(member: CommitMember): Footprint {
  const known = footprints.get(member);
  if (known) return known;
  const items = [`inbox\u0000${member.entry.dedupKey}`];
  let bytes = INBOX_ROW_BYTES + Buffer.byteLength(member.entry.source);
  for (const write of member.writes) {
    items.push(itemOf(write));
    // An outbox append knows its size: its values may be bytes, which JSON would swell.
    bytes += outboxAppendBytes(write) ?? Buffer.byteLength(jsonText(write));
  }
  const footprint = { items, actions: 1 + member.writes.length, bytes };
  footprints.set(member, footprint);
  return footprint;
}

function itemOf(write: EffectWrite): string {
  if ('Put' in write) {
    const { TableName, Item } = write.Put;
    const key = putItemKey(Item) ?? Item;
    return `${TableName}\u0000${keyText(key)}`;
  }
  const target = 'Update' in write ? write.Update : 'Delete' in write ? write.Delete : write.ConditionCheck;
  return `${target.TableName}\u0000${keyText(target.Key)}`;
}

/** A key's attributes in name order, so one key written in two orders is one item. */
function keyText(key: Readonly<Record<string, unknown>>): string {
  return Object.keys(key)
    .filter((name) => key[name] !== undefined)
    .sort()
    .map((name) => `${name}=${jsonText(key[name])}`)
    .join('\u0001');
}

/** JSON that takes what the DocumentClient writes: a bigint (exact numbers) as its digits. */
function jsonText(value: unknown): string {
  return (
    JSON.stringify(value, (_, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? ''
  );
}
