/**
 * The InboxStore port's behaviours, once, for every implementation: the DynamoDB store runs them against
 * DynamoDB Local (test/integration/store), the in-memory store with no I/O (test/unit/core), the Postgres
 * store on PGlite and Debian's Postgres (test/integration/store). The cases speak in store-neutral effect
 * steps (put, put-if-absent, require, delete); each run's harness turns them into its store's effects and
 * says what its store answers for a broken business rule (inbox-store-contract/harness.ts). What only one
 * kind of store can show (DynamoDB's limits on item content, a SQL store's constraints) runs where the
 * harness says the store has the capability, and is reported skipped, with the reason, elsewhere.
 *
 * Pure on purpose: nothing here starts a process or asks vitest for an endpoint, so the memory store's run
 * stays a unit test. Per-implementation details (the DynamoDB row's attributes, the SDK's retries, the
 * SQLSTATE taxonomy, the quarantine row's layout) stay in their own tests.
 */
import { describe } from 'vitest';
import { describeCommitCases } from './inbox-store-contract/commit-cases.js';
import { describeCommitGroupCases } from './inbox-store-contract/commit-group-cases.js';
import { ContractTest } from './inbox-store-contract/contract-test.js';
import { describeExpiryAndQuarantineCases } from './inbox-store-contract/expiry-and-quarantine-cases.js';
import type { InboxStoreContractSubject } from './inbox-store-contract/harness.js';
import { describeLeaseCases } from './inbox-store-contract/lease-cases.js';

export type {
  Capability,
  EffectStep,
  EffectVocabulary,
  HarnessOptions,
  InboxStoreCapabilities,
  InboxStoreContractSubject,
  InboxStoreHarness,
  StoreEffect,
} from './inbox-store-contract/harness.js';

export function describeInboxStoreContract(name: string, subject: InboxStoreContractSubject): void {
  describe(`${name}: the InboxStore contract`, () => {
    const t = new ContractTest(subject);
    t.install();
    describeLeaseCases(t);
    const transactions = subject.capabilities.transactions ?? true;
    if (transactions === true) {
      describeCommitCases(t);
      describeCommitGroupCases(t);
    } else {
      // Said once, with the reason, as a skipped case: the commit cases do not apply.
      describe.skip(`commit and commitGroup (skipped: ${transactions.unsupported})`, () => {
        describeCommitCases(t);
        describeCommitGroupCases(t);
      });
    }
    describeExpiryAndQuarantineCases(t);
  });
}
