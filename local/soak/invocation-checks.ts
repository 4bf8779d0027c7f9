/**
 * What every invocation's answer must satisfy, checked as the driver gets it: one outcome per record, the
 * response names exactly the reported records as a suffix per partition, an outage acks nothing that
 * needed a write, and `in-flight` and `leaseLost` are told only when true.
 */
import { dedupRowKey } from '../../lambdas/core/inbox-rows.js';
import { isReported, type RecordOutcome } from '../../lambdas/core/outcome.js';
import { interpretResponse } from '../esm/batch-response.js';
import type { MskEvent } from '../esm/msk-event.js';
import type { Attempt } from './attempt.js';
import type { JournalEntry } from './journal.js';
import type { RunState } from './run-state.js';

export class InvocationChecks {
  readonly #state: RunState;

  constructor(state: RunState) {
    this.#state = state;
  }

  /**
   * Every record has one outcome; the response names exactly the reported records, each of its own event,
   * and per partition they are a suffix (nothing after a reported record is acked).
   */
  checkInvocation(
    attempt: Attempt,
    event: MskEvent,
    response: unknown,
  ): Map<string, RecordOutcome> | undefined {
    const verdict = interpretResponse(event, response);
    if (verdict.kind === 'invalid') {
      this.#state.recorder.violate('response-names-only-its-records', `${attempt.id}: ${verdict.reason}`);
      return undefined;
    }
    const outcomes = this.#state.outcomes.get(attempt) ?? [];
    const byCoordinates = new Map(outcomes.map((outcome) => [outcome.coordinates, outcome]));
    const expected = Object.entries(event.records).flatMap(([key, list]) =>
      list.map((r) => `${key}@${r.offset}`),
    );
    if (outcomes.length !== expected.length || expected.some((c) => !byCoordinates.has(c))) {
      this.#state.recorder.violate(
        'one-outcome-per-record',
        `${attempt.id}: ${outcomes.length} outcomes for ${expected.length} records`,
      );
      return undefined;
    }
    const failures =
      (response as { batchItemFailures?: { itemIdentifier: { partition: string; offset: number } }[] })
        ?.batchItemFailures ?? [];
    const named = new Set(failures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`));
    for (const outcome of outcomes) {
      if (isReported(outcome.status) && !named.has(outcome.coordinates)) {
        this.#state.recorder.violate(
          'response-names-the-reported-records',
          `${attempt.id}: ${outcome.coordinates} is ${outcome.status} but not reported`,
        );
      }
    }
    // Kafka commits up to the lowest reported offset: every record from it on must be named (redelivered),
    // including one already finished.
    for (const [key, list] of Object.entries(event.records)) {
      const firstNamed = list.findIndex((r) => named.has(`${key}@${r.offset}`));
      if (firstNamed >= 0 && list.slice(firstNamed).some((r) => !named.has(`${key}@${r.offset}`))) {
        this.#state.recorder.violate(
          'reported-suffix',
          `${attempt.id}: ${key} leaves a record after a reported one unnamed`,
        );
      }
    }
    if (attempt.plan.outage) {
      // An unreachable store: nothing is acked that needed a write. A record the response names is not
      // acked, whatever its own status (a duplicate after a failed record of its partition is redelivered
      // with it). A duplicate of a key already completed (the container's cache of completed keys knows it)
      // and a skipped record need no write.
      const acked = outcomes.filter(
        (o) =>
          !named.has(o.coordinates) &&
          o.status !== 'skipped' &&
          !(o.status === 'duplicate' && o.dedupKey !== undefined && this.#completedBefore(o.dedupKey)),
      );
      if (acked.length > 0) {
        this.#state.recorder.violate(
          'outage-acks-nothing',
          `${attempt.id}: ${acked.map((o) => `${o.coordinates} ${o.status}${this.#historyOf(o.dedupKey)}`).join(', ')} acked while the store was unreachable`,
        );
      }
    }
    for (const outcome of outcomes) this.#checkOutcomeHonesty(attempt, outcome);
    return byCoordinates;
  }

  /**
   * Whether some attempt may have durably completed the key: a commit or a completion the store applied,
   * or one whose connection died in flight, which the store may have applied and a container then read.
   */
  #completedBefore(dedupKey: string): boolean {
    const pk = dedupRowKey(this.#state.workload.consumer, dedupKey);
    return (
      this.#state.journal.maybeApplied(
        (e) =>
          (e.request.operation === 'commit' || e.request.operation === 'complete') &&
          e.request.pks.includes(pk),
      ).length > 0
    );
  }

  /** The journal's requests on a key's row, for a violation's message. */
  #historyOf(dedupKey: string | undefined): string {
    if (dedupKey === undefined) return '';
    const pk = dedupRowKey(this.#state.workload.consumer, dedupKey);
    const entries = this.#state.journal.entries.filter((e) => e.request.pks.includes(pk));
    const verdict = (e: JournalEntry) =>
      e.applied ? 'applied' : e.uncertain ? 'in flight at death' : 'failed';
    return ` (${entries.map((e) => `#${e.seq} ${e.attempt.id} ${e.request.operation} ${verdict(e)}`).join('; ') || 'no request'})`;
  }

  /** `in-flight` means another attempt holds the lease; `leaseLost` means another attempt took it over. */
  #checkOutcomeHonesty(attempt: Attempt, outcome: RecordOutcome): void {
    if (outcome.dedupKey === undefined) return;
    const pk = dedupRowKey(this.#state.workload.consumer, outcome.dedupKey);
    const claims = this.#state.journal.applied((e) => e.request.operation === 'claim' && e.request.pk === pk);
    const own = claims.filter((e) => e.attempt === attempt);
    if (outcome.status === 'in-flight' && outcome.reason === 'live-lease' && own.length > 0) {
      const later = claims.some((e) => e.attempt !== attempt && e.seq > (own.at(-1)?.seq ?? 0));
      if (!later) {
        this.#state.recorder.violate(
          'in-flight-means-another-attempt',
          `${attempt.id}: ${outcome.coordinates} reported in-flight on the lease it claimed itself (${this.#state.journal.entries
            .filter((e) => e.request.pks.includes(pk))
            .map(
              (e) => `#${e.seq} ${e.attempt.id} ${e.request.operation} ${e.applied ? 'applied' : 'failed'}`,
            )
            .join('; ')})`,
        );
      }
    }
    if (outcome.leaseLost) {
      // Another attempt's claim answered after this attempt's own claim was sent may have been applied
      // after it: the journal cannot order two claims in flight at once.
      const ownSent = own.at(-1)?.sentSeq ?? -1;
      const takenOver = claims.some((e) => e.attempt !== attempt && e.seq > ownSent);
      if (!takenOver) {
        this.#state.recorder.violate(
          'lease-lost-means-taken-over',
          `${attempt.id}: ${outcome.coordinates} reported a lost lease nobody took over (${this.#state.journal.entries
            .filter((e) => e.request.pks.includes(pk))
            .map(
              (e) => `#${e.seq} ${e.attempt.id} ${e.request.operation} ${e.applied ? 'applied' : 'failed'}`,
            )
            .join('; ')})`,
        );
      }
    }
  }
}
