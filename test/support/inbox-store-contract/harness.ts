/**
 * What the InboxStore contract (test/support/inbox-store-contract.ts) asks of each store's run: a fresh
 * store per test, a way to read the business items its effects left, the store's own vocabulary for
 * effects, and what the store can show. The cases speak in store-neutral effect steps; the harness turns
 * them into what its store commits (DynamoDB writes, a SQL effect).
 */
import type { EffectWrite, SqlEffect } from '../../../lambdas/core/effect.js';
import type { CommitResult, InboxStore } from '../../../lambdas/core/inbox-store.js';
import type { ManualClock } from '../clocks.js';

/** What a store can show: `true`, or why it cannot (the case is then skipped, and says so). */
export type Capability = true | { readonly unsupported: string };

export interface InboxStoreCapabilities {
  /**
   * The transactional mode: `commit` and `commitGroup` write the row with the effect. A store for side
   * effects only (Redis) refuses them, and finishes rows by claim and complete instead.
   * @default true
   */
  readonly transactions?: Capability;
  /**
   * DynamoDB refuses some content outright (an item over 400 KB, a key over 2,048 bytes): the commit is
   * `rejected`. A store that cannot model these limits says why.
   */
  readonly contentLimits: Capability;
  /**
   * DynamoDB refuses a transaction with two actions on one item before judging any condition: the commit
   * is `rejected`. A store whose effect steps run one after another says so.
   */
  readonly twoWritesOnOneItemRefused: Capability;
  /**
   * The effect's steps apply in order, each seeing what the steps before it wrote (SQL statements in one
   * transaction), so two writes on one item are allowed and the later one wins.
   */
  readonly stepsSeeEarlierSteps: Capability;
  /**
   * The store enforces constraints of its own on the business items (a unique key): a step breaking one
   * is refused by the store for the record's content (`rejected`, the vocabulary's constraintRejection),
   * undoing that record alone. The `insert-unique` step exists only where this is supported.
   */
  readonly storeConstraints: Capability;
}

/** An item of the business table, keyed by `pk`, as the cases write it. */
export type ItemAttributes = Readonly<Record<string, unknown>>;

/** One step of a record's effect, in the contract's words; the harness says how its store does it. */
export type EffectStep =
  /** Writes the whole item, replacing any there. */
  | { readonly op: 'put'; readonly pk: string; readonly attributes: ItemAttributes }
  /** A business rule: writes the item, refused if it exists already. */
  | { readonly op: 'put-if-absent'; readonly pk: string; readonly attributes: ItemAttributes }
  /** A business rule: the item must exist; writes nothing. */
  | { readonly op: 'require'; readonly pk: string }
  /** Deletes the item, if there. */
  | { readonly op: 'delete'; readonly pk: string }
  /**
   * Writes the item with no rule of the effect's own: the store's unique key refuses a second one
   * (capability storeConstraints only).
   */
  | { readonly op: 'insert-unique'; readonly pk: string; readonly attributes: ItemAttributes };

/** A record's effect as its store commits it: `commit(entry, writes, sql)`, or a CommitMember's fields. */
export interface StoreEffect {
  readonly writes: readonly EffectWrite[];
  readonly sql?: SqlEffect;
}

/** How a store expresses the cases' effects, and how it answers their business rules. */
export interface EffectVocabulary {
  effectOf(steps: readonly EffectStep[]): StoreEffect;
  /**
   * What a commit answers when the rule of step `stepIndex` fails, the first of the record's to fail
   * (DynamoDB: `business-rejected` naming the write; a SQL effect: `effect-rejected`). May hold
   * asymmetric matchers (`expect.any`).
   */
  businessRejection(stepIndex: number): CommitResult;
  /** What a commit answers for a broken store constraint (with capability storeConstraints). */
  readonly constraintRejection?: CommitResult;
}

export interface InboxStoreHarness extends EffectVocabulary {
  readonly store: InboxStore;
  /** A business item as the committed effects left it: `{ pk, ...attributes }`, or undefined. */
  appItem(pk: string): Promise<Record<string, unknown> | undefined>;
  /** Whether the store still holds the dedup row of `dedupKey`, expired or not (TTL deletion is lazy). */
  holdsDedupRow(dedupKey: string): Promise<boolean>;
  /** Releases what the harness made for its test (a schema, a pool). */
  dispose?(): Promise<void>;
}

export interface HarnessOptions {
  /** The store's only clock: tests move time with it. */
  readonly clock: ManualClock;
  /** The dedup window the store must use. */
  readonly ttlSeconds: number;
}

export interface InboxStoreContractSubject {
  readonly capabilities: InboxStoreCapabilities;
  /** A fresh, empty store per test. */
  makeHarness(options: HarnessOptions): Promise<InboxStoreHarness>;
}
