/** The demo's flags: sizes, rates and ESM settings, each with a default that finishes in well under 2 minutes. */
import { parseFlags } from '../../operator/cli/parse-flags.js';
import { UserError } from '../../operator/cli/user-error.js';
import { parseBrokerList } from '../kafka/kafka-client.js';
import { ORDER_VALUE_FORMATS, type OrderValueFormat } from '../orders/order-avro.js';
import type { DemoSourceKind } from './demo-log.js';

export interface DemoOptions {
  readonly events: number;
  readonly partitions: number;
  readonly accounts: number;
  readonly duplicateRate: number;
  readonly poisonRate: number;
  readonly crashRate: number;
  readonly duplicateDeliveryRate: number;
  readonly overlapRate: number;
  readonly batchSize: number;
  readonly batchingWindowMs: number;
  /** Undefined: one per partition. */
  readonly pollers: number | undefined;
  readonly functionTimeoutMs: number;
  readonly maxRetryAttempts: number;
  readonly bisect: boolean;
  readonly seed: number;
  /** Use a running DynamoDB (Local) instead of starting one. */
  readonly dynamoDbEndpoint: string | undefined;
  /** POWERTOOLS_LOG_LEVEL for the function. */
  readonly logLevel: string;
  /** Undefined: the Kafka broker where kcat is installed (or --brokers is given), else the in-memory log. */
  readonly source: DemoSourceKind | undefined;
  /** With `source: 'kafka'`: brokers to use instead of starting the local mock cluster. */
  readonly kafkaBrokers: readonly string[] | undefined;
  /** Leave the DynamoDB Local it starts running afterwards, for `msk-inbox` (kept-dynamodb.ts). */
  readonly keep: boolean;
  /** How values are produced and read: JSON (the sample's bundle), or Avro (the harness consumer's). */
  readonly format: OrderValueFormat;
  /**
   * Where the inbox is: DynamoDB Local or Postgres (PGlite, embedded: demo-postgres.ts) with the orders, or
   * Redis for the sample's side-effect consumer, whose calls go to a local receiver (demo-redis.ts).
   */
  readonly store: DemoStore;
  /** The chain orders → order consumer (inbox + outbox) → relay → payments → payment consumer (local/demo/pipeline/). */
  readonly pipeline: boolean;
}

export const DEMO_STORES = ['dynamodb', 'postgres', 'redis'] as const;
export type DemoStore = (typeof DEMO_STORES)[number];

export const DEFAULT_DEMO_OPTIONS: DemoOptions = {
  events: 5_000,
  partitions: 4,
  accounts: 200,
  duplicateRate: 0.1,
  poisonRate: 0.01,
  crashRate: 0.05,
  duplicateDeliveryRate: 0.02,
  overlapRate: 0.02,
  batchSize: 100,
  batchingWindowMs: 500,
  pollers: undefined,
  functionTimeoutMs: 30_000,
  maxRetryAttempts: -1,
  bisect: false,
  seed: 42,
  dynamoDbEndpoint: undefined,
  logLevel: 'WARN',
  // The trigger is MSK: the demo speaks the Kafka protocol end to end wherever this machine can host a broker.
  source: undefined,
  kafkaBrokers: undefined,
  keep: false,
  format: 'json',
  store: 'dynamodb',
  pipeline: false,
};

interface Flag {
  readonly name: string;
  readonly key: keyof DemoOptions;
  readonly kind: 'integer' | 'rate' | 'string' | 'boolean' | 'source' | 'list' | 'format' | 'store';
  readonly help: string;
  readonly min?: number;
  readonly max?: number;
}

const FLAGS: readonly Flag[] = [
  {
    name: 'source',
    key: 'source',
    kind: 'source',
    help: 'kafka (a Kafka-protocol broker hosted by kcat, or --brokers) or memory (an in-memory partitioned log)',
  },
  {
    name: 'brokers',
    key: 'kafkaBrokers',
    kind: 'list',
    help: 'host:port,... of an existing Kafka cluster to run against instead of the local one',
  },
  {
    name: 'format',
    key: 'format',
    kind: 'format',
    help: "values as JSON (the sample consumer's bundle) or Avro with a Confluent schema registry header (the harness consumer, VALUE_FORMAT=avro)",
  },
  {
    name: 'store',
    key: 'store',
    kind: 'store',
    help: "where the inbox is: DynamoDB Local, Postgres (PGlite, embedded; the sample's SQL effect in the inbox's transaction), or Redis (redis-server; the sample's side-effect consumer, one HTTP call per order to a local receiver)",
  },
  { name: 'events', key: 'events', kind: 'integer', min: 1, max: 1_000_000, help: 'order events to produce' },
  {
    name: 'partitions',
    key: 'partitions',
    kind: 'integer',
    min: 1,
    max: 256,
    help: 'partitions of the topic',
  },
  {
    name: 'accounts',
    key: 'accounts',
    kind: 'integer',
    min: 1,
    max: 1_000_000,
    help: 'accounts the orders debit',
  },
  {
    name: 'duplicate-rate',
    key: 'duplicateRate',
    kind: 'rate',
    help: 'share of events the producer sends twice',
  },
  {
    name: 'poison-rate',
    key: 'poisonRate',
    kind: 'rate',
    help: 'share of poison records (bad JSON or, with Avro, garbage bytes; no event_id; bad amount)',
  },
  {
    name: 'crash-rate',
    key: 'crashRate',
    kind: 'rate',
    help: 'share of invocations whose environment dies mid-batch',
  },
  {
    name: 'duplicate-delivery-rate',
    key: 'duplicateDeliveryRate',
    kind: 'rate',
    help: 'share of successful batches delivered again (commit lost)',
  },
  {
    name: 'overlap-rate',
    key: 'overlapRate',
    kind: 'rate',
    help: 'share of invocations shadowed by a fenced concurrent one over an overlapping batch',
  },
  { name: 'batch-size', key: 'batchSize', kind: 'integer', min: 1, max: 10_000, help: 'ESM BatchSize' },
  {
    name: 'batching-window-ms',
    key: 'batchingWindowMs',
    kind: 'integer',
    min: 0,
    max: 300_000,
    help: 'ESM MaximumBatchingWindowInSeconds, in ms',
  },
  {
    name: 'pollers',
    key: 'pollers',
    kind: 'integer',
    min: 1,
    max: 256,
    help: 'provisioned pollers (concurrent invocations)',
  },
  {
    name: 'function-timeout-ms',
    key: 'functionTimeoutMs',
    kind: 'integer',
    min: 1_000,
    max: 900_000,
    help: 'the function timeout',
  },
  {
    name: 'max-retry-attempts',
    key: 'maxRetryAttempts',
    kind: 'integer',
    min: -1,
    max: 10_000,
    help: 'ESM MaximumRetryAttempts (-1: infinite, capped at 10 with a destination)',
  },
  { name: 'bisect', key: 'bisect', kind: 'boolean', help: 'ESM BisectBatchOnFunctionError' },
  {
    name: 'seed',
    key: 'seed',
    kind: 'integer',
    min: 0,
    max: 2 ** 31,
    help: 'seed of the workload and the faults',
  },
  {
    name: 'dynamodb-endpoint',
    key: 'dynamoDbEndpoint',
    kind: 'string',
    help: 'use this DynamoDB (Local) instead of starting one',
  },
  { name: 'log-level', key: 'logLevel', kind: 'string', help: "the function's POWERTOOLS_LOG_LEVEL" },
  {
    name: 'pipeline',
    key: 'pipeline',
    kind: 'boolean',
    help: 'the chain orders → order consumer (inbox + outbox) → outbox relay → payments → payment consumer, verified end to end',
  },
  {
    name: 'keep',
    key: 'keep',
    kind: 'boolean',
    help: 'leave DynamoDB Local running afterwards and print how to reach and stop it (for msk-inbox)',
  },
];

const UNSET_DEFAULTS: Partial<Record<keyof DemoOptions, string>> = {
  source: 'kafka where kcat is installed, else memory',
  pollers: 'one per partition',
  dynamoDbEndpoint: 'start DynamoDB Local',
  kafkaBrokers: 'start the local mock cluster',
};

const HELP_HINT = 'npm start -- --help lists every flag';

/** A bad value or combination; the message names every problem, on one line, and points at --help. */
export class DemoUsageError extends UserError {
  constructor(problems: string) {
    super(`${problems} (${HELP_HINT})`);
    this.name = 'DemoUsageError';
  }
}

export type ParsedDemoArgs =
  | { readonly help: true }
  | { readonly help: false; readonly options: DemoOptions };

export function parseDemoArgs(argv: readonly string[]): ParsedDemoArgs {
  const values = parseFlags(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(
        FLAGS.map((flag) => [flag.name, { type: flag.kind === 'boolean' ? 'boolean' : 'string' }]),
      ),
    },
    HELP_HINT,
  );
  if (values.help) return { help: true };
  const options: Record<string, unknown> = { ...DEFAULT_DEMO_OPTIONS };
  const problems: string[] = [];
  for (const flag of FLAGS) {
    const raw = values[flag.name];
    if (raw === undefined) continue;
    if (flag.kind === 'boolean' || flag.kind === 'string') {
      options[flag.key] = raw;
      continue;
    }
    if (flag.kind === 'list') {
      try {
        options[flag.key] = parseBrokerList(String(raw));
      } catch (error) {
        problems.push((error as Error).message);
      }
      continue;
    }
    if (flag.kind === 'format') {
      if (ORDER_VALUE_FORMATS.includes(raw as OrderValueFormat)) options[flag.key] = raw;
      else problems.push(`--${flag.name} ${String(raw)}: expected ${ORDER_VALUE_FORMATS.join(' or ')}`);
      continue;
    }
    if (flag.kind === 'store') {
      if (DEMO_STORES.includes(raw as DemoStore)) options[flag.key] = raw;
      else problems.push(`--${flag.name} ${String(raw)}: expected one of ${DEMO_STORES.join(', ')}`);
      continue;
    }
    if (flag.kind === 'source') {
      if (raw === 'memory' || raw === 'kafka') options[flag.key] = raw;
      else problems.push(`--${flag.name} ${String(raw)}: expected memory or kafka`);
      continue;
    }
    const value = Number(raw);
    const [min, max] = flag.kind === 'rate' ? [0, 1] : [flag.min ?? 0, flag.max ?? Number.MAX_SAFE_INTEGER];
    const valid =
      Number.isFinite(value) &&
      value >= min &&
      value <= max &&
      (flag.kind === 'rate' || Number.isInteger(value));
    if (valid) options[flag.key] = value;
    else
      problems.push(
        `--${flag.name} ${String(raw)}: expected ${flag.kind === 'rate' ? 'a number' : 'an integer'} from ${min} to ${max}`,
      );
  }
  if (options.source === 'memory' && options.kafkaBrokers !== undefined) {
    problems.push('--brokers names a Kafka cluster: it cannot go with --source memory');
  }
  if (options.keep === true && options.dynamoDbEndpoint !== undefined) {
    problems.push(
      '--keep keeps the DynamoDB Local the demo starts: with --dynamodb-endpoint, yours stays anyway',
    );
  }
  // Only DynamoDB has a consumer for Avro values (the harness's) and a --keep for msk-inbox to reach.
  if (options.store !== 'dynamodb' && options.format !== 'json') {
    problems.push(`--store ${options.store} runs a sample consumer, whose values are JSON: drop --format`);
  }
  if (options.store !== 'dynamodb' && options.keep === true) {
    problems.push(`--keep keeps DynamoDB Local for msk-inbox: with --store ${options.store}, drop --keep`);
  }
  if (options.pipeline === true) {
    const alone = ['store', 'keep', 'format', 'brokers', 'dynamodb-endpoint', 'partitions'].filter(
      (name) => values[name] !== undefined,
    );
    if (alone.length > 0) {
      problems.push(
        `--pipeline runs its own setup on DynamoDB Local: drop ${alone.map((name) => `--${name}`).join(', ')}`,
      );
    }
  }
  if (problems.length > 0) throw new DemoUsageError(problems.join('; '));
  return { help: false, options: options as unknown as DemoOptions };
}

export function demoHelp(): string {
  const width = Math.max(...FLAGS.map((flag) => flagLabel(flag).length));
  const lines = FLAGS.map((flag) => {
    const fallback = DEFAULT_DEMO_OPTIONS[flag.key];
    const shown = fallback !== undefined ? String(fallback) : (UNSET_DEFAULTS[flag.key] ?? 'none');
    return `  ${flagLabel(flag).padEnd(width)}  ${flag.help} (default: ${shown})`;
  });
  return [
    'npm start -- [flags]',
    '',
    "Produces order events to a Kafka-protocol broker (librdkafka's mock cluster, hosted by kcat; without kcat,",
    "an in-memory partitioned log), runs them through an emulator of Lambda's Kafka event source mapping into",
    "the order consumer's deployed bundle, against DynamoDB Local, with crashes and duplicates injected; then",
    'verifies every balance, order total, quarantine row and commit. With --store redis, the consumer is the',
    "sample's side-effect one and the check is one call per event at a local receiver.",
    '',
    ...lines,
    `  ${'--verbose'.padEnd(width)}  stack traces with errors (also: DEBUG=1)`,
    `  ${'-h, --help'.padEnd(width)}  this text`,
  ].join('\n');
}

const PLACEHOLDERS: Record<Flag['kind'], string> = {
  boolean: '',
  rate: ' R',
  integer: ' N',
  string: ' S',
  source: ' memory|kafka',
  list: ' HOST:PORT,...',
  format: ` ${ORDER_VALUE_FORMATS.join('|')}`,
  store: ` ${DEMO_STORES.join('|')}`,
};

function flagLabel(flag: Flag): string {
  return `--${flag.name}${PLACEHOLDERS[flag.kind]}`;
}
