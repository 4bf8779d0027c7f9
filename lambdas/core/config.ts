import type { DedupKeyPolicy } from './dedup-key.js';
import { ConfigError } from './errors.js';
import { DEFAULT_ORDERING, type PartitionOrdering, parseKeySource } from './ordering.js';
import { type HandlerSettings, readHandlerSettings, type StoreKind } from './settings.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface InboxConfig {
  readonly inboxTableName: string;
  /** Where emitted events go (docs/outbox.md); absent when the consumer has no outbox. */
  readonly outboxTableName?: string;
  /** The event source mapping's consumer group, when the deployment says it (KAFKA_CONSUMER_GROUP_ID). */
  readonly consumerGroupId?: string;
  readonly consumerName: string;
  readonly dedupTtlSeconds: number;
  readonly dedupKeyPolicy: DedupKeyPolicy;
  readonly deadlineMarginMs: number;
  readonly leaseMarginMs: number;
  readonly partitionConcurrency: number;
  readonly ordering: PartitionOrdering;
  /** Completed keys remembered per container, so a redelivered duplicate costs no request; 0 turns it off. */
  readonly completedKeyCacheSize: number;
  /** Transactional mode: records committed together in one TransactWriteItems at most; 1 turns grouping off. */
  readonly transactGroupMaxRecords: number;
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

  /** A variable of the consumer's own (a table its effect writes), recorded as missing when empty. */
  required(name: string): string {
    const value = this.#env[name]?.trim();
    if (!value) this.#problems.push(`${name} is required`);
    return value ?? '';
  }

  /** Every handler setting (settings.ts), its problems recorded with the others. */
  handlerSettings(store: StoreKind = 'dynamodb'): HandlerSettings {
    const { settings, problems } = readHandlerSettings(this.#env, store);
    this.#problems.push(...problems);
    return settings;
  }

  /** Problems found elsewhere (the value format's fields), named in the same ConfigError. */
  add(problems: readonly string[]): void {
    this.#problems.push(...problems);
  }

  /** Throws one ConfigError naming every problem found. */
  done(): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems);
  }
}

/** The engine's settings, common to every consumer, from the one table of settings (settings.ts). */
export function readInboxConfig(reader: EnvReader, store: StoreKind = 'dynamodb'): InboxConfig {
  return inboxConfigFrom(reader.handlerSettings(store));
}

/** The engine's view of the settings: the dedup key policy and the ordering as the processor takes them. */
export function inboxConfigFrom(settings: HandlerSettings): InboxConfig {
  return {
    inboxTableName: settings.inboxTableName,
    ...(settings.outboxTableName ? { outboxTableName: settings.outboxTableName } : {}),
    consumerName: settings.consumerName,
    ...(settings.consumerGroupId ? { consumerGroupId: settings.consumerGroupId } : {}),
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
    transactGroupMaxRecords: settings.transactGroupMaxRecords,
  };
}
