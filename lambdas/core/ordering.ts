/**
 * Which records of a partition must run one after another. `partition` (the default) keeps offset order
 * for the whole partition. `key` keeps it per ordering key only, as Confluent's parallel consumer does:
 * records of different keys in one partition run concurrently, which pays when a partition carries many
 * keys. It is only safe when records of different keys never write the same items.
 */
import type { DecodedRecord } from './decode-event.js';

export type KeySource =
  /** The Kafka record key, byte for byte. */
  | { readonly from: 'kafka-key' }
  /** A top-level field (string or number) of the value, as the consumer's value format reads it. */
  | { readonly from: 'field'; readonly field: string };

export type PartitionOrdering =
  | { readonly by: 'partition' }
  | {
      readonly by: 'key';
      readonly keySource: KeySource;
      /** Keys of one partition in flight at once. */
      readonly keyConcurrency: number;
    };

export const DEFAULT_ORDERING: PartitionOrdering = { by: 'partition' };

/** `kafka-key` or `field:<name>`; undefined when the text is neither. */
export function parseKeySource(text: string): KeySource | undefined {
  if (text === 'kafka-key') return { from: 'kafka-key' };
  const field = /^field:(.+)$/.exec(text)?.[1]?.trim();
  return field ? { from: 'field', field } : undefined;
}

/**
 * The record's ordering key; undefined (no key, an unparsable value, a missing field) puts the record in
 * one shared lane with every other keyless record of its partition, so those keep their offset order.
 */
export function orderingKeyOf(record: DecodedRecord, source: KeySource): string | undefined {
  if (source.from === 'kafka-key') return typeof record.raw.key === 'string' ? record.raw.key : undefined;
  const parsed = record.parsed;
  if (
    !parsed.ok ||
    typeof parsed.value !== 'object' ||
    parsed.value === null ||
    Array.isArray(parsed.value)
  ) {
    return undefined;
  }
  const value = (parsed.value as Record<string, unknown>)[source.field];
  // 42 and "42" share a lane: more ordering than needed is safe, less is not. A bigint is a wide long.
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint'
    ? String(value)
    : undefined;
}
