/**
 * Every setting of the handler, described once: its environment variable, type, default, bounds and
 * meaning, and the KafkaConsumer prop that carries it if one does. One function (checkSettings) judges a
 * set of them for the env reader (config.ts) and for the construct at synth (lib/settings-prop.ts); the
 * construct's `settings` prop is typed from this table (TunableSettings), and the README's settings table
 * is written from it (a test compares them).
 */
import { DEFAULT_DEDUP_KEY_POLICY } from './dedup-key.js';
import { CONSUMER_NAME_PATTERN, DEFAULT_DEDUP_TTL_SECONDS } from './inbox-rows.js';

interface Common {
  /** The environment variable the handler reads. */
  readonly env: string;
  /** One sentence for the README. */
  readonly meaning: string;
  /**
   * The KafkaConsumer prop that carries it: the construct sets it, so its `settings` prop may not
   * (TunableSettings leaves it out, synth refuses it from JavaScript).
   */
  readonly prop?: string;
  /** Never required: absent turns its feature off (the outbox). */
  readonly optional?: boolean;
}

export type SettingDefinition = Common &
  (
    | { readonly kind: 'integer'; readonly default: number; readonly min: number; readonly max: number }
    | {
        readonly kind: 'text';
        readonly default?: string;
        readonly pattern?: RegExp;
        readonly patternHint?: string;
      }
    | { readonly kind: 'choice'; readonly default: string; readonly choices: readonly string[] }
  );

export const HANDLER_SETTINGS = {
  inboxTableName: {
    env: 'INBOX_TABLE_NAME',
    kind: 'text',
    prop: 'inboxTable',
    meaning: 'the inbox table: partition key `pk` (S), TTL attribute `expires_at`',
  },
  outboxTableName: {
    env: 'OUTBOX_TABLE_NAME',
    kind: 'text',
    prop: 'outbox',
    optional: true,
    meaning:
      "the outbox table the effect's emitted events are appended to (docs/outbox.md); set by the `outbox` prop",
  },
  consumerName: {
    env: 'CONSUMER_NAME',
    kind: 'text',
    pattern: CONSUMER_NAME_PATTERN,
    patternHint: 'must be 1-64 letters, digits, dots, dashes or underscores',
    prop: 'consumerName',
    meaning: 'scopes inbox rows: `pk = "<CONSUMER_NAME>#<event_id>"`; 1-64 of `[A-Za-z0-9_.-]`',
  },
  consumerGroupId: {
    env: 'KAFKA_CONSUMER_GROUP_ID',
    kind: 'text',
    prop: 'consumerGroupId',
    optional: true,
    meaning:
      "the event source mapping's consumer group, as traces name it (`messaging.consumer.group.name`, docs/tracing.md); set by the `consumerGroupId` prop",
  },
  dedupTtlSeconds: {
    env: 'DEDUP_TTL_SECONDS',
    kind: 'integer',
    prop: 'dedupTtl',
    default: DEFAULT_DEDUP_TTL_SECONDS,
    // Lambda's Kafka ESM never redelivers a record older than its maximum record age, at most 7 days.
    min: 60,
    max: 31_536_000,
    meaning: "the dedup window (Kafka's default retention); keep it above the ESM's maximum record age",
  },
  dedupHeader: {
    env: 'DEDUP_HEADER',
    kind: 'text',
    default: DEFAULT_DEDUP_KEY_POLICY.header,
    meaning: 'the header holding the producer-assigned id (UTF-8); looked at first',
  },
  dedupField: {
    env: 'DEDUP_FIELD',
    kind: 'text',
    default: DEFAULT_DEDUP_KEY_POLICY.field,
    meaning:
      "the value's top-level field holding the id (JSON, or Avro or Protobuf as the value format reads it), when the header is absent",
  },
  dedupKeyFallback: {
    env: 'DEDUP_KEY_FALLBACK',
    kind: 'choice',
    default: DEFAULT_DEDUP_KEY_POLICY.fallback,
    choices: ['none', 'coordinates'],
    meaning:
      '`coordinates` keys id-less records by `topic-partition@offset` instead of quarantining them (`missing-event-id`)',
  },
  deadlineMarginMs: {
    env: 'DEADLINE_MARGIN_MS',
    kind: 'integer',
    prop: 'deadlineMargin',
    default: 3_000,
    min: 0,
    max: 600_000,
    meaning: 'no record starts with less than this left; the rest are reported as deferred',
  },
  leaseMarginMs: {
    env: 'LEASE_MARGIN_MS',
    kind: 'integer',
    default: 10_000,
    min: 0,
    max: 3_600_000,
    meaning: 'side-effect leases last the remaining invocation time plus this',
  },
  partitionConcurrency: {
    env: 'PARTITION_CONCURRENCY',
    kind: 'integer',
    prop: 'partitionConcurrency',
    default: 8,
    min: 1,
    max: 256,
    meaning: 'partitions processed at once',
  },
  ordering: {
    env: 'ORDERING',
    kind: 'choice',
    default: 'partition',
    choices: ['partition', 'key'],
    meaning:
      "`partition`: a partition's records one after another, in offset order. `key`: records with the same ordering key in offset order, different keys of a partition concurrently (as Confluent's parallel consumer does)",
  },
  keySource: {
    env: 'KEY_SOURCE',
    kind: 'text',
    default: 'kafka-key',
    pattern: /^(kafka-key|field:.+)$/,
    patternHint: 'must be kafka-key or field:<name>',
    meaning:
      'only with `ORDERING=key`: the ordering key, `kafka-key` (the record key, byte for byte) or `field:<name>` (a top-level string or number field of the value, as its format reads it); records without one share one lane',
  },
  keyConcurrency: {
    env: 'KEY_CONCURRENCY',
    kind: 'integer',
    default: 16,
    min: 1,
    max: 1_000,
    meaning:
      "only with `ORDERING=key`: requests of one partition in flight at once: without grouping one key each; with group commit (`TRANSACT_GROUP_MAX_RECORDS` above 1) transactions that carry the ready records of many keys, up to this × `TRANSACT_GROUP_MAX_RECORDS` keys in flight; the SDK's connection pool grows to `PARTITION_CONCURRENCY` × this (at least 50)",
  },
  transactGroupMaxRecords: {
    env: 'TRANSACT_GROUP_MAX_RECORDS',
    kind: 'integer',
    // As many as one transaction holds: its 100 actions bind first for any effect with writes (33 records of
    // the sample's 3 actions). Chosen from the benchmark (docs/benchmarks.md, hot-1p).
    default: 100,
    min: 1,
    // Each record takes at least its inbox row, and a transaction holds 100 actions (docs/aws-facts.md).
    max: 100,
    meaning:
      'transactional mode: ready records of a partition commit together, up to this many in one `TransactWriteItems` (with `ORDERING=key`, the ready records of different keys); `1` turns grouping off',
  },
  completedKeyCacheSize: {
    env: 'COMPLETED_KEY_CACHE_SIZE',
    kind: 'integer',
    // Enough for a redelivery of the largest batch Lambda sends (10,000 records), a few MB of memory.
    default: 10_000,
    min: 0,
    max: 1_000_000,
    meaning:
      'event ids this container saw completed, least recently used out, so a redelivered duplicate costs no request; `0` turns it off',
  },
} as const satisfies Record<string, SettingDefinition>;

export type SettingName = keyof typeof HANDLER_SETTINGS;

/** The type of a setting's value from its definition: a number, one of its choices, or text. */
export type SettingValue<D> = D extends { readonly kind: 'integer' }
  ? number
  : D extends { readonly kind: 'choice'; readonly choices: readonly (infer C)[] }
    ? C
    : string;

/** Every setting, resolved. */
export type HandlerSettings = { readonly [K in SettingName]: SettingValue<(typeof HANDLER_SETTINGS)[K]> };

/** The settings a KafkaConsumer prop carries (`prop` in the table), which its `settings` prop may not set. */
export type CarriedByProp = {
  [K in SettingName]: (typeof HANDLER_SETTINGS)[K] extends { readonly prop: string } ? K : never;
}[SettingName];

/** What a team may set through the construct's `settings` prop: every setting no typed prop carries. */
export type TunableSettings = {
  readonly [K in Exclude<SettingName, CarriedByProp>]?: SettingValue<(typeof HANDLER_SETTINGS)[K]>;
};

/**
 * How a caller names a setting in a problem, in its own vocabulary: the handler by its variable
 * (the default), the construct by its prop.
 */
export type SettingNaming = (name: SettingName) => string;

const byVariable: SettingNaming = (name) => HANDLER_SETTINGS[name].env;

/**
 * The one check of a set of settings, whoever gives them: each value against its definition (bounds,
 * pattern, choices), a required one missing, and the rules between settings. A value is read as the handler
 * reads its variable: as text, trimmed, empty meaning absent. Returns the settings the handler would run
 * with (a bad or absent value gives way to its default) and every problem, each setting named by `naming`.
 */
export function checkSettings(
  given: Readonly<Partial<Record<SettingName, string | number>>>,
  naming: SettingNaming = byVariable,
  store: StoreKind = 'dynamodb',
): { readonly settings: HandlerSettings; readonly problems: readonly string[] } {
  const values: Record<string, string | number> = {};
  const problems: string[] = [];
  const explicitlySet = new Set<SettingName>();
  for (const [name, definition] of Object.entries(HANDLER_SETTINGS) as [SettingName, SettingDefinition][]) {
    const text = String(given[name] ?? '').trim();
    const fallback = 'default' in definition ? definition.default : undefined;
    if (text === '') {
      if (fallback === undefined && requiredWith(name, store)) problems.push(`${naming(name)} is required`);
      values[name] = fallback ?? '';
      continue;
    }
    explicitlySet.add(name);
    const problem = valueProblem(definition, text);
    if (problem !== undefined) problems.push(`${naming(name)} "${text}" ${problem}`);
    values[name] =
      problem !== undefined ? (fallback ?? text) : definition.kind === 'integer' ? Number(text) : text;
  }
  const settings = values as unknown as HandlerSettings;
  return { settings, problems: [...problems, ...crossSettingProblems(settings, explicitlySet, naming)] };
}

/** Where the inbox is: DynamoDB needs its table's name, another store (Postgres) does not. */
export type StoreKind = 'dynamodb' | 'other';

/** Required without a default: the inbox table with a DynamoDB inbox; never the outbox, which is optional. */
function requiredWith(name: SettingName, store: StoreKind): boolean {
  if ((HANDLER_SETTINGS[name] as SettingDefinition).optional) return false;
  return name !== 'inboxTableName' || store === 'dynamodb';
}

/** What is wrong with one value (text, trimmed, not empty) for its definition; undefined when nothing is. */
export function valueProblem(definition: SettingDefinition, text: string): string | undefined {
  switch (definition.kind) {
    case 'integer': {
      const number = Number(text);
      return Number.isSafeInteger(number) && number >= definition.min && number <= definition.max
        ? undefined
        : `must be a whole number from ${definition.min} to ${definition.max}`;
    }
    case 'choice':
      return definition.choices.includes(text)
        ? undefined
        : `must be one of: ${definition.choices.join(', ')}`;
    case 'text':
      return definition.pattern && !definition.pattern.test(text)
        ? (definition.patternHint ?? `must match ${definition.pattern}`)
        : undefined;
  }
}

/** The rules between settings. */
function crossSettingProblems(
  settings: HandlerSettings,
  explicitlySet: ReadonlySet<SettingName>,
  naming: SettingNaming,
): string[] {
  if (
    settings.ordering === 'partition' &&
    (explicitlySet.has('keySource') || explicitlySet.has('keyConcurrency'))
  ) {
    return [
      `${naming('keySource')} and ${naming('keyConcurrency')} apply only when ${naming('ordering')} is key`,
    ];
  }
  return [];
}

/** Reads every setting from the environment; the problems name each bad or missing variable. */
export function readHandlerSettings(
  env: Readonly<Record<string, string | undefined>>,
  store: StoreKind = 'dynamodb',
): {
  readonly settings: HandlerSettings;
  readonly problems: readonly string[];
} {
  const given: Partial<Record<SettingName, string>> = {};
  for (const name of Object.keys(HANDLER_SETTINGS) as SettingName[]) {
    given[name] = env[HANDLER_SETTINGS[name].env];
  }
  return checkSettings(given, byVariable, store);
}
/** The environment variables that carry these settings to the handler. */
export function settingsEnvironment(settings: Partial<HandlerSettings>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings) as [SettingName, string | number | undefined][]) {
    if (value !== undefined) environment[HANDLER_SETTINGS[name].env] = String(value);
  }
  return environment;
}

/** The settings' variables, for checks that no other source sets them. */
export const SETTING_VARIABLES: readonly string[] = Object.values(HANDLER_SETTINGS).map((d) => d.env);

/**
 * A table of settings (a store's own: POSTGRES_SETTINGS, REDIS_SETTINGS, the Postgres relay's) read from
 * values given in code over the environment's: each checked against its definition, a problem added to
 * `problems` as `<VARIABLE> "<text>" <problem>` and its default used instead; an unset one is its default,
 * or '' without one (the caller says which are required).
 */
export function readSettingsTable<T extends Record<string, SettingDefinition>>(
  table: T,
  given: Readonly<Partial<Record<keyof T, string | number>>>,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): { readonly [K in keyof T]: SettingValue<T[K]> } {
  const values: Record<string, string | number> = {};
  for (const [name, definition] of Object.entries(table) as [keyof T & string, SettingDefinition][]) {
    const text = String(given[name] ?? env[definition.env] ?? '').trim();
    const fallback = 'default' in definition ? definition.default : undefined;
    const problem = text === '' ? undefined : valueProblem(definition, text);
    if (problem !== undefined) problems.push(`${definition.env} "${text}" ${problem}`);
    values[name] =
      text === '' || problem !== undefined
        ? (fallback ?? '')
        : definition.kind === 'integer'
          ? Number(text)
          : text;
  }
  return values as { readonly [K in keyof T]: SettingValue<T[K]> };
}
