/**
 * Filters on a Kafka record, as Lambda's Kafka event source mapping applies them: on `value` only, decoded
 * from UTF-8, as JSON when it is a JSON object and as a plain string otherwise; a record is delivered when
 * it matches any filter. https://docs.aws.amazon.com/lambda/latest/dg/kafka-filtering.html
 *
 * A value that does not fit a filter's form (a field pattern on a plain string, a string rule on a JSON
 * object, bytes that are not UTF-8): Lambda "processes metadata filters only", and Kafka filters have no
 * metadata, so such a filter lets the record through (assumed: docs/aws-facts.md#event-filtering).
 * A record without value (a tombstone) is the exception: it matches only a pattern asking for a missing
 * field (`exists: false`), so any other filter drops it and its offset is committed (assumed, and its
 * consequence, in the same section).
 */
import { Token } from 'aws-cdk-lib';
import { FlatEvent, flattenJsonText, flattenValue } from './filter-event.js';
import {
  type CompiledPattern,
  compilePattern,
  compileRootRules,
  FilterPatternError,
  isPlainObject,
} from './filter-pattern.js';

/**
 * One filter: a pattern on the record's `value`, e.g. `{ value: { type: ['order.placed'] } }` for a JSON
 * value, or `{ value: [{ prefix: 'order ' }] }` for a plain string.
 */
export interface KafkaRecordFilter {
  readonly value: Readonly<Record<string, unknown>> | readonly unknown[];
}

/** The API's bound on one filter's pattern. https://docs.aws.amazon.com/lambda/latest/api/API_Filter.html */
export const MAX_PATTERN_CHARACTERS = 4096;

/** Synth-time problems with `filters`, each naming the filter. */
export function filterProblems(filters: readonly KafkaRecordFilter[] | undefined): string[] {
  if (filters === undefined) return [];
  if (filters.length === 0) return ['filters is empty: leave it out to deliver every record'];
  return filters.flatMap((filter, index) => {
    const name = `filters[${index}]`;
    if (Token.isUnresolved(filter)) return [];
    const extra = Object.keys(filter).filter((key) => key !== 'value');
    if (extra.length > 0 || !('value' in filter)) {
      return [`${name} names ${extra.join(', ') || 'no value'}: Kafka mappings filter on "value" only`];
    }
    const problems: string[] = [];
    try {
      compileValueFilter(filter);
    } catch (error) {
      if (!(error instanceof FilterPatternError)) throw error;
      problems.push(`${name}: ${error.message}`);
    }
    const length = JSON.stringify(filter).length;
    if (length > MAX_PATTERN_CHARACTERS) {
      problems.push(
        `${name} is ${length} characters as JSON: Lambda takes at most ${MAX_PATTERN_CHARACTERS}`,
      );
    }
    return problems;
  });
}

type DecodedValue =
  | { readonly form: 'absent' }
  | { readonly form: 'undecodable' }
  /** `text`: as sent, for its numbers' text (filter-event.ts). */
  | { readonly form: 'json'; readonly value: Record<string, unknown>; readonly text: string }
  | { readonly form: 'string'; readonly value: string };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The value as Lambda's filter sees it. */
export function decodeValue(bytes: Uint8Array | null): DecodedValue {
  if (bytes === null) return { form: 'absent' };
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { form: 'undecodable' };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return { form: 'json', value: parsed, text };
  } catch {
    // A plain string.
  }
  return { form: 'string', value: text };
}

/** A filter's `value`: fields of a JSON object, or rules on the value as a string. */
function compileValueFilter(filter: KafkaRecordFilter): CompiledPattern {
  const { value } = filter;
  if (isPlainObject(value)) return compilePattern(value, 'value');
  if (Array.isArray(value)) return compileRootRules(value, 'value');
  throw new FilterPatternError(
    'value must be an object of fields (a JSON value) or a list of rules (a string value)',
  );
}

/** Compiles the filters once; the result says whether a record's value is delivered. */
export function compileKafkaFilters(
  filters: readonly KafkaRecordFilter[],
): (value: Uint8Array | null) => boolean {
  const compiled = filters.map((filter) => ({
    onFields: isPlainObject(filter.value),
    matches: compileValueFilter(filter),
  }));
  return (bytes) => {
    const decoded = decodeValue(bytes);
    if (decoded.form === 'undecodable') return true;
    // Flattened once for all the filters: the JSON text with its numbers as written, or the string.
    const event =
      decoded.form === 'absent'
        ? new FlatEvent([])
        : decoded.form === 'json'
          ? flattenJsonText(decoded.text)
          : flattenValue(decoded.value);
    return compiled.some(({ onFields, matches }) => {
      if (decoded.form !== 'absent' && (decoded.form === 'json') !== onFields) return true;
      return matches(event);
    });
  };
}
