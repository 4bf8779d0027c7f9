/**
 * The schedule's end state, once every partition is committed: each record's last acked outcome matches
 * its content, quarantined records keep their rows, and each event's effect was applied exactly once
 * (transactional) or never lost and never run twice outside the window (side-effect).
 */
import { hashPayload } from '../../lambdas/core/decode-event.js';
import { dedupRowKey } from '../../lambdas/core/inbox-rows.js';
import type { OutcomeStatus, RecordOutcome } from '../../lambdas/core/outcome.js';
import type { Attempt } from './attempt.js';
import type { RunState } from './run-state.js';
import type { MalformedVariant, RecordSpec } from './schedule.js';
import type { WindowCause } from './schedule-result.js';
import type { StoredState } from './soak-store.js';
import type { Workload } from './workload.js';

export class FinalState {
  readonly #state: RunState;
  readonly #workload: Workload;

  constructor(state: RunState) {
    this.#state = state;
    this.#workload = state.workload;
  }

  /** Every record ends as its content says; then exactly once (transactional) or the side-effect rules. */
  async check(): Promise<void> {
    // Every record ends processed, duplicate, skipped or quarantined, as its content says.
    const quarantined: string[] = [];
    for (const [coordinates, record] of this.#state.records) {
      const outcome = this.#state.finalOutcomes.get(coordinates);
      if (!outcome) {
        this.#state.recorder.violate(
          'every-record-ends-final',
          `${coordinates} was committed without an acked outcome`,
        );
        continue;
      }
      const problem = this.#unexpectedOutcome(record.spec, outcome);
      if (problem) this.#state.recorder.violate('outcome-matches-content', `${coordinates}: ${problem}`);
      if (outcome.status === 'quarantined') quarantined.push(coordinates);
    }
    const { events } = this.#state.schedule;
    const stored = await this.#state.store.read({
      consumer: this.#workload.consumer,
      dedupKeys: events.map((_, i) => this.#workload.eventId(i)),
      quarantinedCoordinates: quarantined,
      orderIds: events.map((_, i) => this.#workload.orderId(i)),
      accountIds: [...new Set(events.map((e) => this.#workload.accountId(e.account)))],
    });
    for (const coordinates of quarantined) {
      if (!stored.quarantined.has(coordinates)) {
        this.#state.recorder.violate(
          'quarantine-row-kept',
          `${coordinates} acked as quarantined without a QUARANTINED row`,
        );
      }
    }
    if (this.#state.schedule.mode === 'transactional') this.#checkExactlyOnce(stored);
    else this.#checkSideEffects(stored);
  }

  #unexpectedOutcome(spec: RecordSpec, outcome: RecordOutcome): string | undefined {
    const got = `${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`;
    if (spec.kind === 'order') {
      if (outcome.status === 'processed' || outcome.status === 'duplicate') return undefined;
      const conflicting = this.#workload.event(spec.event).conflictAmount !== undefined;
      if (conflicting && outcome.status === 'quarantined' && outcome.reason === 'payload-conflict')
        return undefined;
      return `a valid order ended ${got}`;
    }
    const expected: Record<MalformedVariant, [OutcomeStatus, string]> = {
      'not-json': ['quarantined', 'invalid-event'],
      'no-event-id': ['quarantined', 'missing-event-id'],
      'non-utf8-event-id': ['quarantined', 'invalid-event-id'],
      'numeric-event-id': ['quarantined', 'invalid-event-id'],
      'schema-invalid': ['quarantined', 'invalid-event'],
      tombstone: ['quarantined', 'invalid-event'],
      'other-type': ['skipped', 'other-event-type'],
    };
    const [status, reason] = expected[spec.variant];
    return outcome.status === status && outcome.reason === reason
      ? undefined
      : `${spec.variant} ended ${got}, expected ${status} (${reason})`;
  }

  /** Transactional mode: each unique valid event's effect is applied exactly once, with its inbox row. */
  #checkExactlyOnce(stored: StoredState): void {
    const { events } = this.#state.schedule;
    const balances = new Map<number, number>();
    events.forEach((event, i) => {
      const total = stored.orderTotals.get(this.#workload.orderId(i)) ?? 0;
      const row = stored.dedupRows.get(this.#workload.eventId(i));
      const variants: ['original' | 'conflict', number][] = [['original', event.amount]];
      if (event.conflictAmount !== undefined) variants.push(['conflict', event.conflictAmount]);
      const applied = variants.find(([, amount]) => amount === total);
      if (total === 0) {
        this.#state.recorder.violate('nothing-lost', `${this.#workload.eventId(i)} was never applied`);
      } else if (!applied) {
        this.#state.recorder.violate(
          'exactly-once',
          `${this.#workload.eventId(i)}: order total ${total}, amounts ${variants.map(([, a]) => a)}`,
        );
      } else if (
        row?.status !== 'COMPLETED' ||
        row.payloadHash !== hashPayload(this.#workload.orderValue(i, applied[0]))
      ) {
        this.#state.recorder.violate(
          'effect-with-its-inbox-row',
          `${this.#workload.eventId(i)}: applied as ${applied[0]} but its inbox row is ${row?.status ?? 'absent'}`,
        );
      }
      balances.set(event.account, (balances.get(event.account) ?? 0) - total);
    });
    for (const [account, expected] of balances) {
      const balance = stored.balances.get(this.#workload.accountId(account)) ?? 0;
      if (balance !== expected) {
        this.#state.recorder.violate(
          'exactly-once',
          `account ${account}: balance ${balance}, expected ${expected}`,
        );
      }
    }
  }

  /**
   * Side-effect mode: never lost; never run by two live attempts at once within the skew bound; and an
   * event runs again only after an application whose completion was never recorded (the window).
   */
  #checkSideEffects(stored: StoredState): void {
    for (const run of this.#state.ledger.concurrentRuns) {
      if (!this.#state.schedule.beyondBound) {
        this.#state.recorder.violate(
          'never-concurrent',
          `${run.key}: ${run.attempts.join(' and ')} inside the effect at once (clocks ${run.skewGapMs} ms apart)`,
        );
      }
    }
    this.#state.schedule.events.forEach((event, i) => {
      const key = this.#workload.eventId(i);
      const applications = this.#state.ledger.applicationsOf(key);
      const row = stored.dedupRows.get(key);
      if (applications.length === 0) {
        this.#state.recorder.violate('nothing-lost', `${key} was never applied`);
        return;
      }
      const last = applications.at(-1);
      if (row?.status !== 'COMPLETED') {
        // Beyond the skew bound an attempt can take the key over while its holder still runs the call,
        // and die holding it: the call ran, and the row waits for a later duplicate to run it again (the
        // double effect the bound admits). Counted, not asserted.
        if (this.#state.schedule.beyondBound && last && this.#takenOverFrom(last.attempt, key)) {
          this.#state.recorder.count('observed:row-left-held-by-a-taker');
        } else {
          this.#state.recorder.violate(
            'nothing-lost',
            `${key} applied but its inbox row is ${row?.status ?? 'absent'}`,
          );
        }
      }
      const amounts = [event.amount, event.conflictAmount].filter((a) => a !== undefined);
      if (last && !amounts.includes(last.amount)) {
        this.#state.recorder.violate('effect-with-its-inbox-row', `${key}: applied amount ${last.amount}`);
      } else if (last && row) {
        const variant = last.amount === event.amount ? 'original' : 'conflict';
        if (row.payloadHash !== hashPayload(this.#workload.orderValue(i, variant))) {
          // Beyond the skew bound two live attempts can run one key's call at once (a payload and its
          // conflicting copy): the lease holder's completion lands, the other's call may have run last.
          // The double effect the bound admits: counted, not asserted.
          if (this.#state.schedule.beyondBound && this.#ranConcurrently(key)) {
            this.#state.recorder.count('observed:row-payload-of-a-concurrent-run');
          } else {
            this.#state.recorder.violate(
              'effect-with-its-inbox-row',
              `${key}: the row's payload is not the last applied one`,
            );
          }
        }
      }
      // Beyond the skew bound a takeover while the holder still runs is possible: counted, not asserted.
      if (this.#state.schedule.beyondBound) return;
      for (const application of applications.slice(0, -1)) {
        const cause = this.windowCause(application.attempt, key, application.timedOutAfterApply);
        if (cause) continue;
        this.#state.recorder.violate(
          'at-most-once-outside-the-window',
          `${key}: applied again after ${application.attempt.id} applied and recorded its completion`,
        );
      }
    });
  }

  /** Whether two live attempts were inside the key's effect at once (external-ledger.ts). */
  #ranConcurrently(key: string): boolean {
    return this.#state.ledger.concurrentRuns.some((run) => run.key === key);
  }

  /** Whether another attempt's claim on the key landed after `attempt`'s own last one. */
  #takenOverFrom(attempt: Attempt, key: string): boolean {
    const pk = dedupRowKey(this.#workload.consumer, key);
    const claims = this.#state.journal.applied((e) => e.request.operation === 'claim' && e.request.pk === pk);
    const own = claims.filter((e) => e.attempt === attempt).at(-1);
    return own !== undefined && claims.some((e) => e.attempt !== attempt && e.seq > own.seq);
  }

  /** Why an application was not closed by a completion, or undefined when it was. */
  windowCause(attempt: Attempt, key: string, timedOutAfterApply: boolean): WindowCause | undefined {
    const pk = dedupRowKey(this.#workload.consumer, key);
    const completed = this.#state.journal.applied(
      (e) => e.attempt === attempt && e.request.operation === 'complete' && e.request.pk === pk,
    );
    if (completed.length > 0) {
      // A completion fenced on a lease taken over does nothing; the journal only records applied writes.
      return undefined;
    }
    if (timedOutAfterApply) return 'external-timeout-after-apply';
    const lost = this.#state.outcomes.get(attempt)?.some((o) => o.dedupKey === key && o.leaseLost);
    if (lost) return 'lease-lost';
    if (attempt.deathPoint === 'after-effect') return 'crash-after-effect';
    if (attempt.deathPoint === 'after-write') return 'crash-at-random-write';
    if (attempt.deathPoint?.startsWith('timed out')) return 'timed-out';
    if (attempt.dead) return 'crash-elsewhere';
    return 'completion-write-failed';
  }

  /** Walks each key's applied writes: a claim or commit over a row another holder still had IN_PROGRESS. */
  leaseTakeovers(): number {
    const holders = new Map<string, Attempt | 'seeded'>();
    for (const row of this.#state.schedule.seededRows) {
      if (row.kind === 'live-lease' || row.kind === 'expired-in-progress') {
        holders.set(dedupRowKey(this.#workload.consumer, this.#workload.eventId(row.event)), 'seeded');
      }
    }
    let takeovers = 0;
    for (const { attempt, request } of this.#state.journal.applied(() => true)) {
      for (const pk of request.pks) {
        const holder = holders.get(pk);
        if (request.operation === 'claim' || request.operation === 'commit') {
          if (holder !== undefined && holder !== attempt) takeovers++;
          if (request.operation === 'claim') holders.set(pk, attempt);
          else holders.delete(pk);
        } else if (
          (request.operation === 'complete' || request.operation === 'release') &&
          holder === attempt
        ) {
          holders.delete(pk);
        }
      }
    }
    return takeovers;
  }
}
