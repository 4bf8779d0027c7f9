import { createHash } from 'node:crypto';
import { InvalidEventError } from './errors.js';

export interface KafkaHeader {
  readonly name: string;
  readonly value: Buffer;
}

export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

/** The record as it came, kept for quarantine rows (key, value and headers stay in their wire form). */
export interface RawRecordView {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number | null;
  readonly timestamp: number | null;
  readonly timestampType: string | null;
  readonly key: string | null;
  readonly value: string | null;
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
  #json: JsonParseResult | undefined;
  #payloadHash: string | undefined;

  constructor(fields: Omit<DecodedRecord, 'json' | 'payloadHash' | 'header'>) {
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
  }

  /** The value parsed as UTF-8 JSON, parsed at most once. */
  get json(): JsonParseResult {
    this.#json ??= parseJson(this.value);
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
export function decodeEvent(event: unknown): DecodedPartition[] {
  if (!isObject(event)) throw new InvalidEventError(`Kafka event must be an object, got ${describe(event)}`);
  const records = event.records;
  if (!isObject(records)) {
    throw new InvalidEventError(`Kafka event has no "records" map (got ${describe(records)})`);
  }
  return Object.entries(records).map(([partitionKey, list]) => {
    if (!Array.isArray(list)) {
      throw new InvalidEventError(`records["${partitionKey}"] must be an array, got ${describe(list)}`);
    }
    const decoded = list.map((raw, index) => decodeRecord(partitionKey, raw, index));
    return { partitionKey, records: inOffsetOrder(decoded) };
  });
}

function decodeRecord(partitionKey: string, raw: unknown, index: number): DecodedRecord {
  const fromKey = splitPartitionKey(partitionKey);
  const problems: string[] = [];
  const record = isObject(raw) ? raw : {};
  if (!isObject(raw)) problems.push(`record is ${describe(raw)}, not an object`);

  const offset = isNonNegativeInteger(record.offset) ? record.offset : undefined;
  if (offset === undefined) problems.push(`offset ${describe(record.offset)} is not a non-negative integer`);
  const topic = typeof record.topic === 'string' && record.topic !== '' ? record.topic : fromKey.topic;
  const partition = isNonNegativeInteger(record.partition) ? record.partition : fromKey.partition;
  const timestamp =
    typeof record.timestamp === 'number' && Number.isFinite(record.timestamp) ? record.timestamp : undefined;

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
      timestamp: timestamp ?? null,
      timestampType: typeof record.timestampType === 'string' ? record.timestampType : null,
      key: typeof record.key === 'string' ? record.key : null,
      value: typeof record.value === 'string' ? record.value : null,
      headers: record.headers ?? null,
    },
    problem: problems.length > 0 ? problems.join('; ') : undefined,
  });
}

/** Topic names may contain '-': the partition is after the last one (docs/aws-facts.md#the-kafka-event). */
export function splitPartitionKey(partitionKey: string): { topic: string; partition: number } {
  const dash = partitionKey.lastIndexOf('-');
  const partition = dash < 0 ? Number.NaN : Number(partitionKey.slice(dash + 1));
  if (dash <= 0 || !isNonNegativeInteger(partition)) return { topic: partitionKey, partition: -1 };
  return { topic: partitionKey.slice(0, dash), partition };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64Field(name: string, field: unknown, problems: string[]): Buffer | null {
  if (field === undefined || field === null) return null;
  if (typeof field !== 'string') {
    problems.push(`${name} is ${describe(field)}, not a base64 string`);
    return null;
  }
  // Buffer.from(..., 'base64') silently skips bad characters; a corrupt payload must not pass as data.
  if (!BASE64.test(field)) {
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
  for (const entry of field) {
    if (!isObject(entry)) {
      problems.push(`header entry is ${describe(entry)}, not an object`);
      continue;
    }
    for (const [name, bytes] of Object.entries(entry)) {
      // Header bytes arrive as signed Java bytes (-128..127); Buffer.from wraps them to 0..255.
      if (!Array.isArray(bytes) || !bytes.every((b) => Number.isInteger(b) && b >= -128 && b <= 255)) {
        problems.push(`header "${name}" is not an array of bytes`);
        continue;
      }
      headers.push({ name, value: Buffer.from(bytes as number[]) });
    }
  }
  return headers;
}

function inOffsetOrder(records: DecodedRecord[]): DecodedRecord[] {
  // Lambda delivers in offset order; sort defensively, but only when every offset is usable.
  if (records.some((record) => record.offset === undefined)) return records;
  return [...records].sort((a, b) => (a.offset as number) - (b.offset as number));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(value: Buffer | null): JsonParseResult {
  if (value === null) return { ok: false, error: 'value is null' };
  try {
    return { ok: true, value: JSON.parse(utf8.decode(value)) };
  } catch (error) {
    return { ok: false, error: `value is not UTF-8 JSON: ${(error as Error).message}` };
  }
}

/** Decodes bytes as strict UTF-8, or undefined when they are not. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function hashPayload(value: Buffer | null): string {
  // A null value (tombstone) hashes differently from an empty one.
  return value === null ? 'null' : createHash('sha256').update(value).digest('base64');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}
