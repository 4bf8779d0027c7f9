import { createHash } from 'node:crypto';
import { InvalidEventError } from './errors.js';
import {
  JSON_VALUES,
  type ParsedValue,
  parseJson,
  type SchemaMetadata,
  type ValueFormat,
} from './value-format.js';

export interface KafkaHeader {
  readonly name: string;
  readonly value: Buffer;
}

export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

/**
 * The record as it came, kept for quarantine rows: key, value and headers stay in their wire form, and
 * whatever a producer or a broken envelope put there is kept as it is (quarantine-row.ts bounds it).
 */
export interface RawRecordView {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number | null;
  /** The offset field as it came, when it was not a usable number. */
  readonly offsetAsSent?: unknown;
  /** Epoch ms, when a safe integer. */
  readonly timestamp: number | null;
  /** The timestamp field as it came, when it was not a safe integer. */
  readonly timestampAsSent?: unknown;
  readonly timestampType: unknown;
  /** Base64 text from Lambda; anything else when the record is malformed. */
  readonly key: unknown;
  readonly value: unknown;
  readonly headers: unknown;
}

/** One record of the batch, decoded once; a record that could not be decoded carries its `problem`. */
export class DecodedRecord {
  /** The `records` map key exactly as it came: the response must echo it. */
  readonly partitionKey: string;
  readonly topic: string;
  readonly partition: number;
  /** Undefined only for a malformed record without a usable offset. */
  readonly offset: number | undefined;
  readonly timestamp: number | undefined;
  /** `topic-partition@offset`, or `topic-partition#index` when the offset is unusable. */
  readonly coordinates: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly KafkaHeader[];
  readonly raw: RawRecordView;
  /** Why the record could not be decoded; it is then quarantined as `undecodable`. */
  readonly problem: string | undefined;
  /** The record's `valueSchemaMetadata`, when Lambda validated it against a schema registry. */
  readonly valueSchemaMetadata: SchemaMetadata | undefined;
  /** How `parsed` reads the value: the consumer's value format. */
  readonly valueFormat: ValueFormat;
  #json: JsonParseResult | undefined;
  #parsed: ParsedValue | undefined;
  #payloadHash: string | undefined;

  constructor(fields: Omit<DecodedRecord, 'json' | 'parsed' | 'payloadHash' | 'header'>) {
    this.partitionKey = fields.partitionKey;
    this.topic = fields.topic;
    this.partition = fields.partition;
    this.offset = fields.offset;
    this.timestamp = fields.timestamp;
    this.coordinates = fields.coordinates;
    this.key = fields.key;
    this.value = fields.value;
    this.headers = fields.headers;
    this.raw = fields.raw;
    this.problem = fields.problem;
    this.valueSchemaMetadata = fields.valueSchemaMetadata;
    this.valueFormat = fields.valueFormat;
  }

  /**
   * The value read by the consumer's value format (JSON unless it said Avro or Protobuf), at most once:
   * what the dedup key's field, the ordering key's field, the skip hook and the schema see.
   */
  get parsed(): ParsedValue {
    this.#parsed ??= this.valueFormat.parse(this.value, this.valueSchemaMetadata);
    return this.#parsed;
  }

  /** The value parsed as UTF-8 JSON whatever the consumer's format, parsed at most once. */
  get json(): JsonParseResult {
    if (this.#json === undefined) {
      const parsed = this.valueFormat === JSON_VALUES ? this.parsed : parseJson(this.value);
      this.#json = parsed.ok ? parsed : { ok: false, error: parsed.error };
    }
    return this.#json;
  }

  /** SHA-256 of the value bytes: the same key with another payload is a conflict, not a duplicate. */
  get payloadHash(): string {
    this.#payloadHash ??= hashPayload(this.value);
    return this.#payloadHash;
  }

  /** The first header of that name. */
  header(name: string): Buffer | undefined {
    return this.headers.find((header) => header.name === name)?.value;
  }
}

export interface DecodedPartition {
  readonly partitionKey: string;
  readonly records: readonly DecodedRecord[];
}

/**
 * Decodes a Kafka event into partitions of records in offset order. Only an unusable envelope throws;
 * a malformed record is returned with its `problem` so it gets an outcome of its own.
 */
export function decodeEvent(event: unknown, valueFormat: ValueFormat = JSON_VALUES): DecodedPartition[] {
  if (!isObject(event)) throw new InvalidEventError(`Kafka event must be an object, got ${describe(event)}`);
  const records = event.records;
  if (!isObject(records)) {
    throw new InvalidEventError(`Kafka event has no "records" map (got ${describe(records)})`);
  }
  return Object.entries(records).map(([partitionKey, list]) => {
    if (!Array.isArray(list)) {
      throw new InvalidEventError(`records["${partitionKey}"] must be an array, got ${describe(list)}`);
    }
    const decoded = list.map((raw, index) => decodeRecord(partitionKey, raw, index, valueFormat));
    return { partitionKey, records: inOffsetOrder(decoded) };
  });
}

function decodeRecord(
  partitionKey: string,
  raw: unknown,
  index: number,
  valueFormat: ValueFormat,
): DecodedRecord {
  const fromKey = splitPartitionKey(partitionKey);
  const problems: string[] = [];
  const record = isObject(raw) ? raw : {};
  if (!isObject(raw)) problems.push(`record is ${describe(raw)}, not an object`);

  const offset = isNonNegativeInteger(record.offset) ? record.offset : undefined;
  if (offset === undefined) problems.push(`offset is ${describe(record.offset)}, not a non-negative integer`);
  const topic = typeof record.topic === 'string' && record.topic !== '' ? record.topic : fromKey.topic;
  const partition = isNonNegativeInteger(record.partition) ? record.partition : fromKey.partition;
  // Only a number the SDK can write exactly: a producer's nanoseconds (1.7e18) or Long.MAX are not one.
  const timestamp =
    typeof record.timestamp === 'number' && Number.isSafeInteger(record.timestamp)
      ? record.timestamp
      : undefined;

  const key = decodeBase64Field('key', record.key, problems);
  const value = decodeBase64Field('value', record.value, problems);
  const headers = decodeHeaders(record.headers, problems);

  return new DecodedRecord({
    partitionKey,
    topic,
    partition,
    offset,
    timestamp,
    coordinates: offset === undefined ? `${partitionKey}#${index}` : `${partitionKey}@${offset}`,
    key,
    value,
    headers,
    raw: {
      topic,
      partition,
      offset: offset ?? null,
      ...(offset === undefined ? { offsetAsSent: record.offset ?? null } : {}),
      timestamp: timestamp ?? null,
      ...(timestamp === undefined && record.timestamp !== undefined && record.timestamp !== null
        ? { timestampAsSent: record.timestamp }
        : {}),
      timestampType: record.timestampType ?? null,
      key: record.key ?? null,
      value: record.value ?? null,
      headers: record.headers ?? null,
    },
    problem: problems.length > 0 ? problems.join('; ') : undefined,
    valueSchemaMetadata: schemaMetadataOf(record.valueSchemaMetadata),
    valueFormat,
  });
}

/**
 * `valueSchemaMetadata` as Lambda adds it with a schema registry (value-format.ts): read only when it is
 * an object; a field that is not a string counts as absent (a malformed one must not pass for an id).
 */
function schemaMetadataOf(field: unknown): SchemaMetadata | undefined {
  if (!isObject(field)) return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return { dataFormat: text(field.dataFormat), schemaId: text(field.schemaId) };
}

/** Topic names may contain '-': the partition is after the last one (docs/aws-facts.md#the-kafka-event). */
export function splitPartitionKey(partitionKey: string): { topic: string; partition: number } {
  const dash = partitionKey.lastIndexOf('-');
  const partition = dash < 0 ? Number.NaN : Number(partitionKey.slice(dash + 1));
  if (dash <= 0 || !isNonNegativeInteger(partition)) return { topic: partitionKey, partition: -1 };
  return { topic: partitionKey.slice(0, dash), partition };
}

function decodeBase64Field(name: string, field: unknown, problems: string[]): Buffer | null {
  if (field === undefined || field === null) return null;
  if (typeof field !== 'string') {
    problems.push(`${name} is ${describe(field)}, not a base64 string`);
    return null;
  }
  // Buffer.from(..., 'base64') silently skips bad characters; a corrupt payload must not pass as data.
  if (!isBase64(field)) {
    problems.push(`${name} is not valid base64`);
    return null;
  }
  return Buffer.from(field, 'base64');
}

function decodeHeaders(field: unknown, problems: string[]): KafkaHeader[] {
  if (field === undefined || field === null) return [];
  if (!Array.isArray(field)) {
    problems.push(`headers is ${describe(field)}, not an array`);
    return [];
  }
  const headers: KafkaHeader[] = [];
  field.forEach((entry, index) => {
    if (!isObject(entry)) {
      problems.push(`header ${index} is ${describe(entry)}, not an object`);
      return;
    }
    for (const [name, bytes] of Object.entries(entry)) {
      // Header bytes arrive as signed Java bytes (-128..127); Buffer.from wraps them to 0..255.
      if (!Array.isArray(bytes) || !bytes.every((b) => Number.isInteger(b) && b >= -128 && b <= 255)) {
        // The header's name is the producer's text: the problem names its position only.
        problems.push(`header ${index} is not an array of bytes`);
        continue;
      }
      headers.push({ name, value: Buffer.from(bytes as number[]) });
    }
  });
  return headers;
}

function inOffsetOrder(records: DecodedRecord[]): DecodedRecord[] {
  // Lambda delivers in offset order; sort defensively, but only when every offset is usable.
  if (records.some((record) => record.offset === undefined)) return records;
  return [...records].sort((a, b) => (a.offset as number) - (b.offset as number));
}

/** The standard alphabet (RFC 4648 §4) as a lookup table: one pass, no regular expression. */
const BASE64_ALPHABET = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') {
  BASE64_ALPHABET[char.charCodeAt(0)] = 1;
}
const PAD = '='.charCodeAt(0);

/**
 * Canonical padded base64, checked in one pass whatever the length: a regular expression with a
 * repeated group overflows V8's stack on values of a few MB.
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  let padding = 0;
  if (text.length > 0 && text.charCodeAt(text.length - 1) === PAD) padding += 1;
  if (text.length > 1 && text.charCodeAt(text.length - 2) === PAD) padding += 1;
  const end = text.length - padding;
  for (let index = 0; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 128 || BASE64_ALPHABET[code] === 0) return false;
  }
  return true;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes bytes as strict UTF-8, or undefined when they are not. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** SHA-256 of the value bytes, as the inbox row's `payload_hash` (docs/design.md#the-inbox-item). */
export function hashPayload(value: Buffer | null): string {
  // A null value (tombstone) hashes differently from an empty one.
  return value === null ? 'null' : createHash('sha256').update(value).digest('base64');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A value's kind, never its content: these descriptions go to logs. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : 'a non-finite number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
