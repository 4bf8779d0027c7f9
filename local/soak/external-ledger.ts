/**
 * A recording fake of an external service (a payment provider) for side-effect mode: it keeps every
 * applied call and notices when two live attempts are inside the effect for one key at the same time.
 */
import type { Attempt } from './attempt.js';
import type { Sequence } from './journal.js';

export interface Application {
  readonly seq: number;
  readonly key: string;
  readonly amount: number;
  readonly attempt: Attempt;
  /** The service applied the call, but the caller saw a timeout. */
  timedOutAfterApply: boolean;
}

export interface ConcurrentRun {
  readonly key: string;
  readonly attempts: readonly [string, string];
  /** Clock difference between the two attempts. */
  readonly skewGapMs: number;
}

export class ExternalLedger {
  readonly applications: Application[] = [];
  readonly concurrentRuns: ConcurrentRun[] = [];
  readonly #open = new Map<string, Set<Attempt>>();
  readonly #seen = new Set<string>();
  readonly #sequence: Sequence;

  constructor(sequence: Sequence) {
    this.#sequence = sequence;
  }

  /** The attempt enters the effect for `key`. */
  begin(key: string, attempt: Attempt): void {
    this.#checkAlone(key, attempt);
    let open = this.#open.get(key);
    if (!open) {
      open = new Set();
      this.#open.set(key, open);
    }
    open.add(attempt);
  }

  /** The call reaches the service and is applied; a process that is gone sends nothing. */
  apply(key: string, amount: number, attempt: Attempt): Application {
    attempt.assertAlive('external call');
    this.#checkAlone(key, attempt);
    const application = { seq: this.#sequence.next(), key, amount, attempt, timedOutAfterApply: false };
    this.applications.push(application);
    return application;
  }

  end(key: string, attempt: Attempt): void {
    this.#open.get(key)?.delete(attempt);
  }

  applicationsOf(key: string): Application[] {
    return this.applications.filter((application) => application.key === key);
  }

  #checkAlone(key: string, attempt: Attempt): void {
    for (const other of this.#open.get(key) ?? []) {
      // An attempt Lambda has ended (crashed or past its deadline) no longer runs anything.
      if (other === attempt || !other.alive) continue;
      const pair = `${key}|${[other.id, attempt.id].sort().join('|')}`;
      if (this.#seen.has(pair)) continue;
      this.#seen.add(pair);
      this.concurrentRuns.push({
        key,
        attempts: [other.id, attempt.id],
        skewGapMs: Math.abs(other.plan.skewMs - attempt.plan.skewMs),
      });
    }
  }
}
