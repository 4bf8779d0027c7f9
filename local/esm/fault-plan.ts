/**
 * Fault injection for the emulator: each decision is drawn from a seeded generator, so a run with the
 * same seed meets the same faults at the same invocations.
 */
import { type Random, randomInt, seededRandom } from './seeded-random.js';

export interface FaultSettings {
  /** Share of invocations whose execution environment dies after a random number of DynamoDB writes. @default 0 */
  readonly crashRate?: number;
  /** Share of successful invocations whose commit is lost, so the same batch is delivered again. @default 0 */
  readonly duplicateDeliveryRate?: number;
  /**
   * Share of invocations that run alongside a second invocation over an overlapping batch, as when a poller
   * that lost its partitions in a rebalance keeps going: the second one's response is fenced off. @default 0
   */
  readonly overlappingInvocationRate?: number;
  /** @default 1 */
  readonly seed?: number;
}

export class FaultPlan {
  readonly settings: Required<FaultSettings>;
  readonly #random: Random;

  constructor(settings: FaultSettings = {}) {
    this.settings = {
      crashRate: settings.crashRate ?? 0,
      duplicateDeliveryRate: settings.duplicateDeliveryRate ?? 0,
      overlappingInvocationRate: settings.overlappingInvocationRate ?? 0,
      seed: settings.seed ?? 1,
    };
    for (const [name, rate] of Object.entries(this.settings)) {
      if (name !== 'seed' && !(rate >= 0 && rate <= 1))
        throw new Error(`${name} must be within 0..1, got ${rate}`);
    }
    this.#random = seededRandom(this.settings.seed);
  }

  /**
   * An independent plan with the same rates for one poll loop: each loop then meets the same faults in
   * every run with the same seed, whatever the interleaving of loops.
   */
  fork(stream: number): FaultPlan {
    return new FaultPlan({
      ...this.settings,
      seed: (this.settings.seed + Math.imul(stream + 1, 0x9e3779b9)) >>> 0,
    });
  }

  /** How many writes the invocation may make before its environment dies, or undefined for no crash. */
  crashAfterWrites(recordCount: number): number | undefined {
    if (!this.#happens(this.settings.crashRate)) return undefined;
    return randomInt(this.#random, Math.max(1, recordCount));
  }

  duplicateDelivery(): boolean {
    return this.#happens(this.settings.duplicateDeliveryRate);
  }

  /** A suffix of the batch (possibly all of it) for a concurrent second invocation, or undefined. */
  overlappingBatch<T>(records: readonly T[]): T[] | undefined {
    if (records.length === 0 || !this.#happens(this.settings.overlappingInvocationRate)) return undefined;
    return records.slice(randomInt(this.#random, records.length));
  }

  #happens(rate: number): boolean {
    return rate > 0 && this.#random() < rate;
  }
}

export const NO_FAULTS = new FaultPlan();
