/**
 * One invocation attempt: its own clock (true time plus a skew), its own deadline, and the faults it meets.
 * The consumer code under test runs unchanged; it reaches the attempt through async context, from the SDK
 * middleware (fault-injection.ts), the `pg` client wrapper (postgres-fault-injection.ts) and the external
 * effect (external-ledger.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../../lambdas/core/clock.js';
import type { AttemptPlan, StallPlan, StoreFaultPlan } from './schedule.js';

/** True time of one schedule, moved only by its driver. */
export class VirtualTime {
  nowMs: number;
  constructor(startMs: number) {
    this.nowMs = startMs;
  }
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** The execution environment died at a named point: nothing after it leaves the process. */
export class AttemptCrashedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AttemptCrashedError';
  }
}

export type FaultCounter = (kind: string) => void;

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export class Attempt {
  readonly id: string;
  readonly role: 'primary' | 'companion';
  readonly plan: AttemptPlan;
  readonly stallPlan: StallPlan | undefined;
  readonly deadlineMs: number;
  readonly #time: VirtualTime;
  readonly #countFault: FaultCounter;
  readonly #occurrences = new Map<string, number>();
  #dead = false;
  #deathPoint: string | undefined;
  #storeRequests = 0;
  readonly #deathCallbacks = new Set<() => void>();
  readonly #stalled = deferred();
  readonly #released = deferred();
  #hasStalled = false;

  constructor(options: {
    id: string;
    role: 'primary' | 'companion';
    plan: AttemptPlan;
    stall?: StallPlan;
    time: VirtualTime;
    timeoutMs: number;
    countFault: FaultCounter;
  }) {
    this.id = options.id;
    this.role = options.role;
    this.plan = options.plan;
    this.stallPlan = options.stall;
    this.#time = options.time;
    this.deadlineMs = options.time.nowMs + options.timeoutMs;
    this.#countFault = options.countFault;
  }

  /** This attempt's wall clock: true time plus its skew. */
  nowMs(): number {
    return this.#time.nowMs + this.plan.skewMs;
  }

  /** Lambda measures the remaining time on the environment's own monotonic clock: no skew. */
  remainingMs(): number {
    return Math.max(0, this.deadlineMs - this.#time.nowMs);
  }

  get dead(): boolean {
    return this.#dead;
  }

  get deathPoint(): string | undefined {
    return this.#deathPoint;
  }

  /** Alive: not crashed, and Lambda has not ended it at its deadline. */
  get alive(): boolean {
    return !this.#dead && this.#time.nowMs < this.deadlineMs;
  }

  get hasStalled(): boolean {
    return this.#hasStalled;
  }

  /** Resolves when the attempt reaches its stall point. */
  get stalled(): Promise<void> {
    return this.#stalled.promise;
  }

  release(): void {
    this.#released.resolve();
  }

  /** Counts an occurrence of a point and says whether it is the nth (0-based). */
  occurrence(point: string): number {
    const n = this.#occurrences.get(point) ?? 0;
    this.#occurrences.set(point, n + 1);
    return n;
  }

  nextStoreRequest(): number {
    return this.#storeRequests++;
  }

  /**
   * The planned client fault the attempt's `index`th store request meets, of the kinds `applies` admits for
   * that request (a fault planned on a request it cannot hit is skipped).
   */
  plannedFault<Kind extends StoreFaultPlan['kind']>(
    index: number,
    applies: (kind: StoreFaultPlan['kind']) => kind is Kind,
  ): Kind | undefined {
    for (const fault of this.plan.storeFaults) {
      if (index < fault.atCall || index >= fault.atCall + fault.burst) continue;
      if (applies(fault.kind)) return fault.kind;
    }
    return undefined;
  }

  /** Runs `callback` when the environment dies (its connections drop); the returned function cancels it. */
  onDeath(callback: () => void): () => void {
    this.#deathCallbacks.add(callback);
    return () => this.#deathCallbacks.delete(callback);
  }

  fault(kind: string): void {
    this.#countFault(kind);
  }

  /** Ends the environment here. */
  die(point: string): never {
    if (!this.#dead) {
      this.#dead = true;
      this.#deathPoint = point;
      for (const callback of this.#deathCallbacks) callback();
      this.#deathCallbacks.clear();
    }
    throw new AttemptCrashedError(`execution environment ended: ${point}`);
  }

  /** Throws when the environment is gone (crashed, or ended by Lambda at its deadline). */
  assertAlive(where: string): void {
    if (this.#dead) throw new AttemptCrashedError(`execution environment already ended (${where})`);
    if (this.#time.nowMs >= this.deadlineMs) this.die(`timed out (${where})`);
  }

  /** Crashes when the plan says this occurrence of `point` is fatal. */
  crashIf(point: string, occurrence: number): void {
    const crash = this.plan.crash;
    if (crash?.point === point && crash.nth === occurrence) {
      this.fault(`crash:${point}`);
      this.die(point);
    }
  }

  /** Waits here while the driver moves time on and runs the primary; then Lambda may have ended it. */
  async stallHere(point: StallPlan['point']): Promise<void> {
    this.#hasStalled = true;
    this.fault(`stall:${point}`);
    this.#stalled.resolve();
    await this.#released.promise;
  }
}

/** The attempt whose code is running now (undefined for the driver's own requests). */
export const currentAttempt = new AsyncLocalStorage<Attempt>();

/** The clock the consumer gets: each attempt reads its own skewed clock. */
export function attemptClock(time: VirtualTime): Clock {
  return { nowMs: () => currentAttempt.getStore()?.nowMs() ?? time.nowMs };
}
