import { type DecodedRecord, decodeUtf8 } from './decode-event.js';
import { quarantineKeyOf } from './quarantine-row.js';

export interface DedupKeyPolicy {
  /** Header holding the producer-assigned id (UTF-8). @default 'event_id' */
  readonly header: string;
  /**
   * Top-level field of the value (as the consumer's value format reads it: JSON, Avro, Protobuf), used
   * when the header is absent. @default 'event_id'
   */
  readonly field: string;
  /**
   * `coordinates` keys a record without an id by topic-partition@offset: only a redelivery of that very
   * record is then deduplicated, never a producer retry. @default 'none' (quarantine as missing-event-id)
   */
  readonly fallback: 'none' | 'coordinates';
}

export const DEFAULT_DEDUP_KEY_POLICY: DedupKeyPolicy = {
  header: 'event_id',
  field: 'event_id',
  fallback: 'none',
};

/** The inbox row's key is `<consumer>#<key>`; DynamoDB allows 2,048 bytes for a partition key. */
export const MAX_DEDUP_KEY_BYTES = 1024;

export type DedupKeyResult =
  | { readonly ok: true; readonly key: string; readonly from: 'header' | 'field' | 'coordinates' }
  | {
      readonly ok: false;
      /** `invalid-event` or `undecodable`: no header, and the value format could not read the value. */
      readonly reason: 'missing-event-id' | 'invalid-event-id' | 'invalid-event' | 'undecodable';
      readonly message: string;
    };

/**
 * Header first, then the value's field, then (opt-in) the record's coordinates. With none of them and a
 * value its format cannot read, the value's own failure is the reason: the most specific one, and the
 * same the record gets with a header (docs/design.md#value-formats).
 */
export function deriveDedupKey(record: DecodedRecord, policy: DedupKeyPolicy): DedupKeyResult {
  const header = record.header(policy.header);
  if (header !== undefined && header.length > 0) {
    const key = decodeUtf8(header);
    if (key === undefined) {
      return {
        ok: false,
        reason: 'invalid-event-id',
        message: `header "${policy.header}" is not valid UTF-8`,
      };
    }
    return checked(key, 'header', `header "${policy.header}"`);
  }
  const parsed = record.parsed;
  if (
    parsed.ok &&
    typeof parsed.value === 'object' &&
    parsed.value !== null &&
    !Array.isArray(parsed.value)
  ) {
    const field = (parsed.value as Record<string, unknown>)[policy.field];
    if (typeof field === 'string' && field !== '') return checked(field, 'field', `field "${policy.field}"`);
    if (field !== undefined && field !== null && field !== '') {
      return {
        ok: false,
        reason: 'invalid-event-id',
        message: `field "${policy.field}" is a ${typeof field}, not a string`,
      };
    }
  }
  if (policy.fallback === 'coordinates' && record.offset !== undefined) {
    // The same bounded, collision-free form a quarantine row's key takes.
    return { ok: true, key: `kafka:${quarantineKeyOf(record)}`, from: 'coordinates' };
  }
  // Its message names the kind of failure, never the bytes (value-format.ts#ParsedValue).
  if (!parsed.ok) return { ok: false, reason: parsed.reason, message: parsed.error };
  return {
    ok: false,
    reason: 'missing-event-id',
    message: `no header "${policy.header}" and no string field "${policy.field}" in the ${record.valueFormat.label} value`,
  };
}

/** The same rules wherever the key comes from: well-formed Unicode, at most MAX_DEDUP_KEY_BYTES. */
function checked(key: string, from: 'header' | 'field', where: string): DedupKeyResult {
  // A lone surrogate would be stored as U+FFFD, so two different ids could collapse into one key.
  if (!key.isWellFormed()) {
    return { ok: false, reason: 'invalid-event-id', message: `${where} is not well-formed Unicode` };
  }
  if (Buffer.byteLength(key, 'utf8') > MAX_DEDUP_KEY_BYTES) {
    return {
      ok: false,
      reason: 'invalid-event-id',
      message: `${where} is longer than ${MAX_DEDUP_KEY_BYTES} bytes`,
    };
  }
  return { ok: true, key, from };
}
