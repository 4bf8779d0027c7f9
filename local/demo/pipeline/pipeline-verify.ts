/**
 * The pipeline's proof (`npm start -- --pipeline`): every payment the order consumer emitted was
 * published at least once, in its account's commit order, and applied by the payment consumer exactly
 * once and in that order; nothing is left unpublished or quarantined in the outbox; every log is
 * committed to its end.
 */
import type { ExpectedPayments } from './pipeline-expectations.js';

/** The payment consumer's ledger item of one account. */
export interface LedgerEntry {
  /** Payment ids in the order the payment consumer applied them. */
  readonly applied: readonly string[];
  readonly captured: number;
}

export interface PipelineObservations {
  /** Account id → its ledger item. */
  readonly ledger: ReadonlyMap<string, LedgerEntry>;
  /** The payments topic as published: per Kafka key (the account), the `event_id` headers in log order. */
  readonly publishedByKey: ReadonlyMap<string, readonly string[]>;
  readonly outboxQueueRows: number;
  readonly outboxQuarantineRows: number;
  /** Lines of any other check that failed (the order consumer's own verification, uncommitted logs). */
  readonly otherProblems: readonly string[];
}

export interface PipelineVerification {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly payments: number;
  /** Copies of payments published more than once (republished after a relay crash), absorbed by the inbox. */
  readonly republished: number;
}

export function verifyPipeline(expected: ExpectedPayments, seen: PipelineObservations): PipelineVerification {
  const problems: string[] = [...seen.otherProblems];
  const unpublished: string[] = [];
  const misordered: string[] = [];
  const misapplied: string[] = [];
  let republished = 0;
  const expectedIds = new Set<string>();
  for (const [account, ids] of expected.byAccount) {
    for (const id of ids) expectedIds.add(id);
    const published = seen.publishedByKey.get(account) ?? [];
    republished += published.length - new Set(published).size;
    const missing = ids.filter((id) => !published.includes(id));
    if (missing.length > 0) unpublished.push(`${account}: ${missing.length} of ${ids.length}`);
    const firstCopies = [...new Set(published)];
    if (missing.length === 0 && !sameList(firstCopies, ids)) misordered.push(account);
    const ledger = seen.ledger.get(account);
    if (
      ledger === undefined ||
      !sameList(ledger.applied, ids) ||
      ledger.captured !== expected.captured.get(account)
    ) {
      misapplied.push(
        `${account}: applied ${ledger?.applied.length ?? 0} (${new Set(ledger?.applied ?? []).size} distinct) of ${ids.length}, captured ${ledger?.captured ?? 0} != ${expected.captured.get(account)}`,
      );
    }
  }
  const strays = [...seen.publishedByKey.values()].flat().filter((id) => !expectedIds.has(id));
  if (unpublished.length > 0) problems.push(`payments never published: ${sample(unpublished)}`);
  if (strays.length > 0)
    problems.push(`${strays.length} published events nobody emitted, e.g. ${sample(strays)}`);
  if (misordered.length > 0) {
    problems.push(
      `${misordered.length} accounts' payments published out of commit order, e.g. ${sample(misordered)}`,
    );
  }
  if (misapplied.length > 0) {
    problems.push(
      `${misapplied.length} ledgers not applied exactly once in order, e.g. ${sample(misapplied)}`,
    );
  }
  const strayLedgers = [...seen.ledger.keys()].filter((account) => !expected.byAccount.has(account));
  if (strayLedgers.length > 0) problems.push(`unexpected ledgers: ${sample(strayLedgers)}`);
  if (seen.outboxQueueRows > 0) problems.push(`${seen.outboxQueueRows} outbox queue rows still hold events`);
  if (seen.outboxQuarantineRows > 0) problems.push(`${seen.outboxQuarantineRows} outbox events quarantined`);
  return { ok: problems.length === 0, problems, payments: expected.payments, republished };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function sample(items: readonly string[]): string {
  return items.slice(0, 3).join('; ');
}
