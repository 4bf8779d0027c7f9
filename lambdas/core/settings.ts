/**
 * Every setting of the handler, described once: its environment variable, type, default, bounds and
 * meaning. The env reader (config.ts), the KafkaConsumer construct's typed `settings` prop and its
 * synth-time checks, and the README's settings table all come from this table (a test compares the
 * README with it).
 */
import { DEFAULT_DEDUP_KEY_POLICY } from './dedup-key.js';
import { CONSUMER_NAME_PATTERN, DEFAULT_DEDUP_TTL_SECONDS } from './inbox-rows.js';

interface Common {
  /** The environment variable the handler reads. */
  readonly env: string;
  /** One sentence for the README. */
  readonly meaning: string;
  /** Set by the KafkaConsumer construct from its own props, not through `settings`. */
  readonly setByConstruct?: true;
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
    setByConstruct: true,
    meaning: 'the inbox table: partition key `pk` (S), TTL attribute `expires_at`',
  },
  consumerName: {
    env: 'CONSUMER_NAME',
    kind: 'text',
    pattern: CONSUMER_NAME_PATTERN,
    patternHint: 'must be 1-64 letters, digits, dots, dashes or underscores',
    setByConstruct: true,
    meaning: 'scopes inbox rows: `pk = "<CONSUMER_NAME>#<event_id>"`; 1-64 of `[A-Za-z0-9_.-]`',
  },
  dedupTtlSeconds: {
    env: 'DEDUP_TTL_SECONDS',
    kind: 'integer',
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
      "only with `ORDERING=key`: keys of one partition in flight at once; the SDK's connection pool grows to `PARTITION_CONCURRENCY` × this (at least 50)",
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
      'transactional mode: ready records of a partition (or key lane) commit together, up to this many in one `TransactWriteItems`; `1` turns grouping off',
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

type ValueOf<D> = D extends { readonly kind: 'integer' }
  ? number
  : D extends { readonly kind: 'choice'; readonly choices: readonly (infer C)[] }
    ? C
    : string;

/** Every setting, resolved. */
export type HandlerSettings = { readonly [K in SettingName]: ValueOf<(typeof HANDLER_SETTINGS)[K]> };

/** What a team may set in code (the construct's `settings` prop): those the construct does not set itself. */
export type TunableSettings = {
  readonly [K in SettingName as (typeof HANDLER_SETTINGS)[K] extends { readonly setByConstruct: true }
    ? never
    : K]?: ValueOf<(typeof HANDLER_SETTINGS)[K]>;
};

/**
 * Checks one value against its definition; undefined when it is good. Text comes from the environment;
 * a number or text from code (the construct).
 */
export function settingProblem(name: SettingName, value: string | number): string | undefined {
  const definition: SettingDefinition = HANDLER_SETTINGS[name];
  const shown = `${definition.env} "${value}"`;
  switch (definition.kind) {
    case 'integer': {
      const number = typeof value === 'number' ? value : Number(value);
      return Number.isSafeInteger(number) && number >= definition.min && number <= definition.max
        ? undefined
        : `${shown} must be a whole number from ${definition.min} to ${definition.max}`;
    }
    case 'choice':
      return definition.choices.includes(String(value))
        ? undefined
        : `${shown} must be one of: ${definition.choices.join(', ')}`;
    case 'text':
      if (String(value).trim() === '') return `${definition.env} is required`;
      return definition.pattern && !definition.pattern.test(String(value))
        ? `${shown} ${definition.patternHint ?? `must match ${definition.pattern}`}`
        : undefined;
  }
}

/** The rules between settings; each problem names the variables. */
export function crossSettingProblems(
  settings: HandlerSettings,
  explicitlySet: ReadonlySet<SettingName>,
): string[] {
  if (
    settings.ordering === 'partition' &&
    (explicitlySet.has('keySource') || explicitlySet.has('keyConcurrency'))
  ) {
    return ['KEY_SOURCE and KEY_CONCURRENCY apply only with ORDERING=key'];
  }
  return [];
}

/** Reads every setting from the environment; the problems name each bad or missing variable. */
export function readHandlerSettings(env: Readonly<Record<string, string | undefined>>): {
  readonly settings: HandlerSettings;
  readonly problems: readonly string[];
} {
  const values: Record<string, string | number> = {};
  const problems: string[] = [];
  const explicitlySet = new Set<SettingName>();
  for (const [name, definition] of Object.entries(HANDLER_SETTINGS) as [SettingName, SettingDefinition][]) {
    const raw = env[definition.env]?.trim();
    const fallback = 'default' in definition ? definition.default : undefined;
    if (raw === undefined || raw === '') {
      if (fallback === undefined) problems.push(`${definition.env} is required`);
      values[name] = fallback ?? '';
      continue;
    }
    explicitlySet.add(name);
    const problem = settingProblem(name, raw);
    if (problem) {
      problems.push(problem);
      values[name] = fallback ?? raw;
      continue;
    }
    values[name] = definition.kind === 'integer' ? Number(raw) : raw;
  }
  const settings = values as unknown as HandlerSettings;
  return { settings, problems: [...problems, ...crossSettingProblems(settings, explicitlySet)] };
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
