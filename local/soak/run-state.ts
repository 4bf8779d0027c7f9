/**
 * What one schedule run shares between its parts (workload, consumer under test, driver, checks): the
 * log, virtual time, the store under test and the journal of its writes, the external ledger, what was observed, and the
 * bookkeeping of faults, violations and the trace.
 */
import type { RecordOutcome } from '../../lambdas/core/outcome.js';
import type { InMemoryLog } from '../esm/in-memory-log.js';
import type { Attempt, VirtualTime } from './attempt.js';
import type { ExternalLedger } from './external-ledger.js';
import type { Journal } from './journal.js';
import type { OutboxPlan } from './outbox-plan.js';
import type { OutboxRun } from './outbox-relay-run.js';
import type { RecordSpec, Schedule } from './schedule.js';
import type { SoakTarget, Violation } from './schedule-result.js';
import type { SoakStore, StoreMutation } from './soak-store.js';
import type { Workload } from './workload.js';

/** A record as produced to the log, by its coordinates (`topic-partition@offset`). */
export interface LogRecord {
  readonly spec: RecordSpec;
  readonly coordinates: string;
  readonly value: Buffer | null;
}

export interface RunState {
  readonly schedule: Schedule;
  readonly workload: Workload;
  readonly target: SoakTarget;
  readonly time: VirtualTime;
  readonly journal: Journal;
  readonly ledger: ExternalLedger;
  readonly store: SoakStore;
  readonly log: InMemoryLog;
  readonly mutation: StoreMutation | 'ack-everything' | undefined;
  readonly recorder: Recorder;
  /** Every produced record, by coordinates. */
  readonly records: Map<string, LogRecord>;
  /** Per record, the outcome of the delivery whose commit moved past it. */
  readonly finalOutcomes: Map<string, RecordOutcome>;
  /** Per attempt, the outcomes its handler reported. */
  readonly outcomes: Map<Attempt, readonly RecordOutcome[]>;
  readonly counters: { invocations: number; deliveredRecords: number; settleRounds: number };
  /** Outbox schedules: what the consumer emits, and the relay that runs between its rounds. */
  readonly outbox?: { readonly plan: OutboxPlan; readonly run: OutboxRun };
}

/** Faults that fired, invariants broken, and (for replays) a step-by-step trace. */
export class Recorder {
  readonly faults: Record<string, number> = {};
  readonly violations: Violation[] = [];
  readonly traceLines: string[] = [];
  readonly #seed: number;
  readonly #tracing: boolean;

  constructor(seed: number, tracing: boolean) {
    this.#seed = seed;
    this.#tracing = tracing;
  }

  count = (kind: string): void => {
    this.faults[kind] = (this.faults[kind] ?? 0) + 1;
  };

  violate = (invariant: string, detail: string): void => {
    this.violations.push({ seed: this.#seed, invariant, detail });
    this.trace(`  VIOLATION ${invariant}: ${detail}`);
  };

  trace = (line: string): void => {
    if (this.#tracing) this.traceLines.push(line);
  };
}
