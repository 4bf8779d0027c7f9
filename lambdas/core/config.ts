import { DEFAULT_DEDUP_KEY_POLICY, type DedupKeyPolicy } from './dedup-key.js';
import { ConfigError } from './errors.js';
import { CONSUMER_NAME_PATTERN, DEFAULT_DEDUP_TTL_SECONDS } from './inbox-item.js';
import { DEFAULT_ORDERING, type PartitionOrdering, parseKeySource } from './ordering.js';

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

/** Enough for a redelivery of the largest batch Lambda sends (10,000 records), a few MB of memory. */
export const DEFAULT_COMPLETED_KEY_CACHE_SIZE = 10_000;
export const DEFAULT_KEY_CONCURRENCY = 16;

/** Lambda's Kafka ESM never redelivers a record older than its maximum record age, at most 7 days. */
const MIN_DEDUP_TTL_SECONDS = 60;

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

/** The engine's settings, common to every consumer. */
export function readInboxConfig(reader: EnvReader): InboxConfig {
  return {
    inboxTableName: reader.required('INBOX_TABLE_NAME'),
    consumerName: reader.required(
      'CONSUMER_NAME',
      CONSUMER_NAME_PATTERN,
      'must be 1-64 letters, digits, dots, dashes or underscores',
    ),
    dedupTtlSeconds: reader.integer(
      'DEDUP_TTL_SECONDS',
      DEFAULT_DEDUP_TTL_SECONDS,
      MIN_DEDUP_TTL_SECONDS,
      31_536_000,
    ),
    dedupKeyPolicy: {
      header: reader.optional('DEDUP_HEADER', DEFAULT_DEDUP_KEY_POLICY.header),
      field: reader.optional('DEDUP_FIELD', DEFAULT_DEDUP_KEY_POLICY.field),
      fallback: reader.oneOf(
        'DEDUP_KEY_FALLBACK',
        ['none', 'coordinates'],
        DEFAULT_DEDUP_KEY_POLICY.fallback,
      ),
    },
    deadlineMarginMs: reader.integer('DEADLINE_MARGIN_MS', 3_000, 0, 600_000),
    leaseMarginMs: reader.integer('LEASE_MARGIN_MS', 10_000, 0, 3_600_000),
    partitionConcurrency: reader.integer('PARTITION_CONCURRENCY', 8, 1, 256),
    ordering: readOrdering(reader),
    completedKeyCacheSize: reader.integer(
      'COMPLETED_KEY_CACHE_SIZE',
      DEFAULT_COMPLETED_KEY_CACHE_SIZE,
      0,
      1_000_000,
    ),
  };
}

/** ORDERING=partition|key; KEY_SOURCE and KEY_CONCURRENCY only mean something with ORDERING=key. */
function readOrdering(reader: EnvReader): PartitionOrdering {
  const by = reader.oneOf('ORDERING', ['partition', 'key'], DEFAULT_ORDERING.by);
  const keySourceText = reader.optional('KEY_SOURCE', '');
  const keyConcurrency = reader.integer('KEY_CONCURRENCY', DEFAULT_KEY_CONCURRENCY, 1, 1_000);
  if (by === 'partition') {
    if (keySourceText !== '' || reader.isSet('KEY_CONCURRENCY')) {
      reader.problem('KEY_SOURCE and KEY_CONCURRENCY apply only with ORDERING=key');
    }
    return DEFAULT_ORDERING;
  }
  const keySource = parseKeySource(keySourceText || 'kafka-key');
  if (!keySource) {
    reader.problem(`KEY_SOURCE "${keySourceText}" must be kafka-key or field:<name>`);
    return DEFAULT_ORDERING;
  }
  return { by: 'key', keySource, keyConcurrency };
}
