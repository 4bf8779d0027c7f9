/**
 * How a record's value bytes become the value the dedup key, the ordering key, the skip hook and the
 * consumer's Standard Schema see (docs/design.md#value-formats). JSON is built in and the default; Avro
 * and Protobuf live in modules of their own (avro-values.ts, protobuf-values.ts, the package's
 * `msk-inbox/avro` and `msk-inbox/protobuf`), so a JSON consumer's bundle carries neither library.
 */

/**
 * What Lambda adds to a record when its event source mapping validates against a schema registry
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html): the registry's
 * format and schema id (a number for Confluent, a schema version UUID for Glue). Kept as sent, when both
 * are strings.
 */
export interface SchemaMetadata {
  readonly dataFormat: string | undefined;
  readonly schemaId: string | undefined;
}

export type ParsedValue =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      /** Never payload bytes: the kind of failure and where (it reaches logs and quarantine rows). */
      readonly error: string;
      /**
       * The quarantine reason: JSON that does not parse is `invalid-event`, as it always was; bytes that
       * a binary format cannot decode (bad magic, truncated, another schema, past its decode budget:
       * decode-budget.ts) are `undecodable`.
       */
      readonly reason: 'invalid-event' | 'undecodable';
    };

export interface ValueFormat {
  /** How messages name the value: "JSON", "Avro", "Protobuf". */
  readonly label: string;
  /**
   * The top-level fields a decoded value has, when the format knows them from its schema (an Avro record,
   * a reflected Protobuf type): the settings naming a field are checked against them at cold start
   * (valueFieldProblems). Undefined: any name may be there (JSON).
   */
  readonly fieldNames?: ReadonlySet<string>;
  /** Added to a problem about a field name: how this format comes by its names (protobufjs's camelCase). */
  readonly fieldNameHint?: string;
  /** Never throws: a value it cannot read is a failure with its reason. */
  parse(value: Buffer | null, metadata: SchemaMetadata | undefined): ParsedValue;
}

/** The settings that name a field of the value, as the cold start's check takes them. */
export interface ValueFieldSettings {
  /** DEDUP_FIELD, and whether it was set rather than left at its default. */
  readonly dedupField: { readonly name: string; readonly set: boolean };
  /** KEY_SOURCE=field:<name>, when ordering by key takes a field. */
  readonly keyField: string | undefined;
}

/**
 * The settings' field names a value of the format never has, one problem each for the cold start's
 * ConfigError: without it every record lacking the header would be quarantined as missing-event-id, or
 * share one ordering lane. The default DEDUP_FIELD is left alone when the type has nothing like it (its
 * events may carry the id in the header only), but not when the type has it under another spelling
 * (`eventId` for `event_id`: protobufjs without keepCase, docs/design.md#value-formats).
 */
export function valueFieldProblems(format: ValueFormat, settings: ValueFieldSettings): string[] {
  const names = format.fieldNames;
  if (names === undefined) return [];
  const loose = (name: string) => name.replaceAll('_', '').toLowerCase();
  const nearOf = (name: string) => [...names].find((known) => loose(known) === loose(name));
  const problem = (setting: string, name: string) => {
    const near = nearOf(name);
    const hint = format.fieldNameHint === undefined ? '' : `; ${format.fieldNameHint}`;
    return `${setting} "${name}": the ${format.label} value has no such top-level field${near === undefined ? '' : ` (it has "${near}")`}${hint}`;
  };
  const problems: string[] = [];
  const dedup = settings.dedupField;
  if (!names.has(dedup.name) && (dedup.set || nearOf(dedup.name) !== undefined)) {
    problems.push(problem('DEDUP_FIELD', dedup.name));
  }
  if (settings.keyField !== undefined && !names.has(settings.keyField)) {
    problems.push(problem('KEY_SOURCE field', settings.keyField));
  }
  return problems;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 JSON text: the default, and what Lambda hands over with a schema registry's `EventRecordFormat: JSON`. */
export const JSON_VALUES: ValueFormat = {
  label: 'JSON',
  parse: (value) => parseJson(value),
};

export function parseJson(value: Buffer | null): ParsedValue {
  if (value === null) return { ok: false, error: 'value is null', reason: 'invalid-event' };
  let text: string;
  try {
    text = utf8.decode(value);
  } catch {
    return { ok: false, error: 'value is not UTF-8', reason: 'invalid-event' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `value is not JSON${jsonErrorPosition(error)}`, reason: 'invalid-event' };
  }
}

/**
 * Where JSON.parse stopped, and nothing else: its messages quote the payload ("Unexpected token 'x',
 * "card 4111..." is not valid JSON"), and payload bytes never go to logs.
 */
function jsonErrorPosition(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return ` (error at character ${position})`;
  if (/end of JSON input/.test(message)) return ' (it ends early)';
  if (/^Unexpected token/.test(message)) return ' (an unexpected character)';
  return '';
}

/**
 * A 64-bit integer from Avro (`long`) or Protobuf (`int64`, `uint64`, `sint64`, `fixed64`, `sfixed64`): a
 * number when it is a safe integer, so ordinary values stay ordinary for the consumer's schema (`z.int()`),
 * else a bigint, so no digit is lost (a schema taking both says `z.union([z.int(), z.bigint()])`).
 */
export function wideInteger(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/**
 * A decoded value as plain data: records (avsc's generated classes, protobufjs's messages) become plain
 * objects, so a consumer may hand them to the DynamoDB document client, which refuses class instances;
 * 64-bit integers go through wideInteger; bytes stay Uint8Array (Buffer).
 */
export function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return wideInteger(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plainValue(field)]));
}
