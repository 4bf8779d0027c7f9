import type { DedupKeyPolicy } from './dedup-key.js';
import { ConfigError } from './errors.js';
import { DEFAULT_ORDERING, type PartitionOrdering, parseKeySource } from './ordering.js';
import { type HandlerSettings, readHandlerSettings } from './settings.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface InboxConfig {
  readonly inboxTableName: string;
  readonly consumerName: string;
  readonly dedupTtlSeconds: number;
  readonly dedupKeyPolicy: DedupKeyPolicy;
  readonly deadlineMarginMs: number;
  readonly leaseMarginMs: number;
  readonly partitionConcurrency: number;
  readonly ordering: PartitionOrdering;
  /** Completed keys remembered per container, so a redelivered duplicate costs no request; 0 turns it off. */
  readonly completedKeyCacheSize: number;
}

/**
 * Reads variables and collects every problem, so one error names all of them.
 * Call `done()` once everything is read.
 */
export class EnvReader {
  readonly #env: Env;
  readonly #problems: string[] = [];

  constructor(env: Env) {
    this.#env = env;
  }

  required(name: string, pattern?: RegExp, hint?: string): string {
    const value = this.#env[name]?.trim();
    if (!value) {
      this.#problems.push(`${name} is required`);
      return '';
    }
    if (pattern && !pattern.test(value))
      this.#problems.push(`${name} "${value}" ${hint ?? `must match ${pattern}`}`);
    return value;
  }

  /** Every handler setting (settings.ts), its problems recorded with the others. */
  handlerSettings(): HandlerSettings {
    const { settings, problems } = readHandlerSettings(this.#env);
    this.#problems.push(...problems);
    return settings;
  }

  /** Records a problem found while combining variables. */
  problem(message: string): void {
    this.#problems.push(message);
  }

  isSet(name: string): boolean {
    return Boolean(this.#env[name]?.trim());
  }

  optional(name: string, fallback: string): string {
    const value = this.#env[name]?.trim();
    return value ? value : fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.#env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.#problems.push(`${name} "${raw}" must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.#env[name]?.trim();
    if (!raw) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.#problems.push(`${name} "${raw}" must be one of: ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  }

  /** Throws one ConfigError naming every problem found. */
  done(): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems);
  }
}

/** The engine's settings, common to every consumer, from the one table of settings (settings.ts). */
export function readInboxConfig(reader: EnvReader): InboxConfig {
  return inboxConfigFrom(reader.handlerSettings());
}

/** The engine's view of the settings: the dedup key policy and the ordering as the processor takes them. */
export function inboxConfigFrom(settings: HandlerSettings): InboxConfig {
  return {
    inboxTableName: settings.inboxTableName,
    consumerName: settings.consumerName,
    dedupTtlSeconds: settings.dedupTtlSeconds,
    dedupKeyPolicy: {
      header: settings.dedupHeader,
      field: settings.dedupField,
      fallback: settings.dedupKeyFallback,
    },
    deadlineMarginMs: settings.deadlineMarginMs,
    leaseMarginMs: settings.leaseMarginMs,
    partitionConcurrency: settings.partitionConcurrency,
    ordering:
      settings.ordering === 'key'
        ? {
            by: 'key',
            // KEY_SOURCE was checked against its pattern: kafka-key or field:<name>.
            keySource: parseKeySource(settings.keySource) ?? { from: 'kafka-key' },
            keyConcurrency: settings.keyConcurrency,
          }
        : DEFAULT_ORDERING,
    completedKeyCacheSize: settings.completedKeyCacheSize,
  };
}
