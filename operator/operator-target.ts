/**
 * The flags every operator command shares and what they resolve to: the consumer and its inbox, in a
 * DynamoDB table, a Postgres schema or a Redis server (operator-inbox.ts). Both come from the flags, else
 * from the stack's outputs (`--stack`), else from the function's own variables (CONSUMER_NAME,
 * INBOX_TABLE_NAME or REDIS_*), so a shell set up like the function needs no flag.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfigError } from '../lambdas/core/errors.js';
import { CONSUMER_NAME_PATTERN } from '../lambdas/core/inbox-rows.js';
import { REDIS_SETTINGS, readRedisSettings } from '../lambdas/redis/redis-settings.js';
import { UserError } from './cli/user-error.js';
import { DynamoDbOperatorInbox } from './dynamodb-operator-inbox.js';
import { type LocalFallback, withLocalFallback } from './local-fallback.js';
import type { OperatorInbox } from './operator-inbox.js';
import { POSTGRES_FLAGS, POSTGRES_HELP, stackHasPostgres } from './postgres-flags.js';
import type { PostgresConnection } from './postgres-target.js';
import { redacted } from './redacted-url.js';
import { type NamedRedis, REDIS_FLAGS, REDIS_HELP } from './redis-flags.js';
import { readStackOutputs, STACK_OUTPUT_KEYS, type StackOutputs } from './stack-outputs.js';

export const COMMON_FLAGS = {
  consumer: { type: 'string' },
  table: { type: 'string' },
  ...POSTGRES_FLAGS,
  ...REDIS_FLAGS,
  region: { type: 'string' },
  endpoint: { type: 'string' },
  profile: { type: 'string' },
  stack: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const COMMON_HELP = `Common flags:
  --consumer NAME   the consumer's name (default: $CONSUMER_NAME)
  --table NAME      the inbox table (default: $INBOX_TABLE_NAME)
${POSTGRES_HELP}
${REDIS_HELP}
  --region R        AWS region (default: the SDK's: $AWS_REGION, the profile's; with --endpoint and
                    none configured, us-east-1)
  --endpoint URL    DynamoDB Local (e.g. the one \`npm start -- --keep\` prints) or another AWS-compatible
                    endpoint, signed like AWS: with your credentials as the SDK finds them (--profile,
                    $AWS_PROFILE, $AWS_ACCESS_KEY_ID, the shared files); only with none configured, with
                    the fixed local key \`npm start\` uses (DynamoDB Local keeps tables per key and region)
  --profile P       a profile of the shared AWS config (default: $AWS_PROFILE)
  --stack NAME      the deployed stack: its outputs give what these flags do not (FunctionName,
                    InboxTableName, ConsumerName, FailedBatchesBucket; for Postgres PostgresHost, ...)
  --json            machine-readable output on stdout
  --verbose         stack traces for errors`;

export interface OperatorTarget {
  readonly consumer: string;
  /** Where the consumer's rows are read and written: its DynamoDB table or its Postgres schema. */
  readonly inbox: OperatorInbox;
  /** `--region`, else the local one where `--endpoint` found none configured; undefined: the SDK's own. */
  readonly region: string | undefined;
  /** What nothing configured and the tool filled in at `--endpoint` (local-fallback.ts); `{}` without it. */
  readonly fallback: LocalFallback;
  readonly endpoint: string | undefined;
  readonly profile: string | undefined;
  /** The outputs of `--stack`, when it was given: the function and the bucket come from there too. */
  readonly stack: StackOutputs | undefined;
}

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** The target, with `--stack`'s outputs read first when it is given. */
export async function resolveOperatorTarget(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OperatorTarget> {
  const stackName = stringFlag(values.stack);
  const stack =
    stackName === undefined
      ? undefined
      : await readStackOutputs(stackName, {
          region: stringFlag(values.region),
          profile: stringFlag(values.profile),
        });
  return operatorTarget(values, env, stack);
}

/** The target from the flags; `stack` is what `--stack` read (resolveOperatorTarget reads it). */
export async function operatorTarget(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
  stack?: StackOutputs,
): Promise<OperatorTarget> {
  if (stringFlag(values.stack) !== undefined && stack === undefined) {
    throw new Error('--stack is read by resolveOperatorTarget: call it instead of operatorTarget');
  }
  const consumer = stringFlag(values.consumer) ?? stack?.consumerName ?? env.CONSUMER_NAME;
  const orStack = (key: string) =>
    stack === undefined ? '' : `; stack ${stack.stackName} has no ${key} output`;
  if (!consumer) {
    throw new UserError(
      `which consumer? pass --consumer NAME (or set CONSUMER_NAME)${orStack(STACK_OUTPUT_KEYS.consumerName)}`,
    );
  }
  checkConsumerName(consumer);
  const endpoint = dynamoDbEndpointFlag(values);
  const regionFlag = stringFlag(values.region);
  const profile = stringFlag(values.profile);
  const where = { consumer, region: regionFlag, endpoint, profile, stack };
  const redis = redisOf(values, stack, env);
  if (redis !== undefined) {
    // Loaded only for a Redis inbox, with the ioredis client.
    const [{ RedisOperatorInbox }, { redisConnection }] = await Promise.all([
      import('./redis-operator-inbox.js'),
      import('./redis-target.js'),
    ]);
    const inbox = new RedisOperatorInbox({ ...redisConnection(redis), consumer });
    return opened({ ...where, inbox, fallback: {} });
  }
  const postgres = await postgresOf(values, stack, consumer);
  if (postgres !== undefined) {
    refuseEndpointWithPostgres(endpoint, 'inbox');
    // Loaded only for a Postgres inbox, with the `pg` driver.
    const [{ PostgresOperatorInbox }, { postgresAdvice }] = await Promise.all([
      import('./postgres-operator-inbox.js'),
      import('./postgres-target.js'),
    ]);
    const inbox = new PostgresOperatorInbox({
      ...postgres,
      consumer,
      advice: (error) => postgresAdvice(postgres, error),
    });
    return opened({ ...where, inbox, fallback: {} });
  }
  const tableName = stringFlag(values.table) ?? stack?.inboxTableName ?? env.INBOX_TABLE_NAME;
  if (!tableName) {
    throw new UserError(
      `which table? pass --table NAME (or set INBOX_TABLE_NAME), or --postgres URL for a Postgres inbox, or --redis URL for a Redis one${orStack(STACK_OUTPUT_KEYS.inboxTableName)}`,
    );
  }
  const make = (fallback: LocalFallback) =>
    new DynamoDBClient({
      maxAttempts: 3,
      ...(regionFlag === undefined ? {} : { region: regionFlag }),
      ...(profile === undefined ? {} : { profile }),
      ...(endpoint === undefined ? {} : { endpoint }),
      ...fallback,
    });
  const { client, fallback } = await withLocalFallback(make, endpoint, profile, env);
  const region = regionFlag ?? fallback.region;
  const { credentials } = fallback;
  const inbox = new DynamoDbOperatorInbox({
    client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    tableName,
    consumer,
    endpoint,
    region,
    // A consumer run here (--handler) reaches the same table, signed as the tool is.
    handlerVariables: {
      ...(endpoint === undefined ? {} : { AWS_ENDPOINT_URL_DYNAMODB: endpoint }),
      ...(credentials === undefined
        ? {}
        : { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey }),
    },
  });
  return opened({ ...where, region, inbox, fallback });
}

/**
 * The Postgres inbox the flags or the stack name, else undefined (a DynamoDB one). A flag wins over the
 * stack, as everywhere: `--table` (`tableFlag`: the outbox commands' is `outbox-table`) means DynamoDB
 * whatever the stack declares.
 */
export async function postgresOf(
  values: Values,
  stack: StackOutputs | undefined,
  consumer: string,
  tableFlag = 'table',
): Promise<PostgresConnection | undefined> {
  const url = stringFlag(values.postgres);
  const schema = stringFlag(values.schema);
  const table = stringFlag(values[tableFlag]);
  if (url !== undefined && table !== undefined) {
    const what = tableFlag === 'table' ? 'inbox' : 'outbox';
    throw new UserError(`--postgres or --${tableFlag}, not both: the ${what} is in one of them`);
  }
  if (url !== undefined) {
    const { postgresFromUrl } = await import('./postgres-target.js');
    return postgresFromUrl(url, schema ?? stack?.postgres.schema);
  }
  if (table === undefined && stack !== undefined && stackHasPostgres(stack.postgres)) {
    const { postgresFromStack } = await import('./postgres-target.js');
    return postgresFromStack(stack.stackName, stack.postgres, schema, consumer);
  }
  if (schema !== undefined) {
    throw new UserError(
      '--schema goes with --postgres URL (or a stack with Postgres outputs), not a DynamoDB table',
    );
  }
  return undefined;
}

/**
 * The Redis inbox the flags or the variables name, else undefined. `--redis` wins, as every flag does; the
 * REDIS_* variables (a shell set up like the function) only where no flag and no stack output names
 * another inbox, and never beside INBOX_TABLE_NAME, which would leave the inbox a guess.
 */
export function redisOf(
  values: Values,
  stack: StackOutputs | undefined,
  env: NodeJS.ProcessEnv,
): NamedRedis | undefined {
  const url = stringFlag(values.redis);
  const otherFlag = ['table', 'postgres'].find((flag) => stringFlag(values[flag]) !== undefined);
  if (url !== undefined) {
    if (otherFlag !== undefined) {
      throw new UserError(`--redis or --${otherFlag}, not both: the inbox is in one of them`);
    }
    if (!REDIS_SETTINGS.url.pattern.test(url)) {
      throw new UserError(
        `--redis ${redacted(url)} is not a redis:// URL: e.g. redis://127.0.0.1:6379 (rediss:// for TLS)`,
      );
    }
    return onlyRedisFlags(values, { settings: readRedisSettings({ url }, {}), namedBy: 'flag' });
  }
  const stackNamesInbox = stack?.inboxTableName !== undefined || stackHasPostgres(stack?.postgres ?? {});
  if (otherFlag !== undefined || stackNamesInbox) return undefined;
  const { url: urlSetting, host } = REDIS_SETTINGS;
  const variable = [urlSetting.env, host.env].find((name) => stringFlag(env[name]) !== undefined);
  if (variable === undefined) return undefined;
  if (stringFlag(env.INBOX_TABLE_NAME) !== undefined) {
    throw new UserError(
      `INBOX_TABLE_NAME and ${variable} are both set: which inbox? pass --table NAME or --redis URL`,
    );
  }
  try {
    return onlyRedisFlags(values, { settings: readRedisSettings({}, env), namedBy: 'variables' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new UserError(
      `the REDIS_* variables do not name a server (${error.problems.join('; ')}): fix them, or pass --redis URL`,
      { cause: error },
    );
  }
}

/** The flags of another store beside a Redis inbox are a mistake, said in one line. */
function onlyRedisFlags(values: Values, redis: NamedRedis): NamedRedis {
  if (stringFlag(values.schema) !== undefined) {
    throw new UserError('--schema goes with --postgres URL, not a Redis inbox');
  }
  if (stringFlag(values.endpoint) !== undefined) {
    throw new UserError(
      "--endpoint is DynamoDB's: a Redis inbox is reached through --redis URL (or the REDIS_* variables)",
    );
  }
  return redis;
}

/** Targets whose connections the command's runner ends (closeOperatorTargets), however it ends. */
const openTargets = new Set<OperatorTarget>();

function opened(target: OperatorTarget): OperatorTarget {
  openTargets.add(target);
  return target;
}

/** Ends every target's connections: runOperator calls it after each command, so the process can exit. */
export async function closeOperatorTargets(): Promise<void> {
  const targets = [...openTargets];
  openTargets.clear();
  await Promise.all(targets.map((target) => target.inbox.close().catch(() => undefined)));
}

/** An endpoint flag's value, checked to be an http(s) URL; `example` is what the one-line error suggests. */
/** A consumer name from the flags, the stack or the environment: refused in one line when it is not one. */
export function checkConsumerName(consumer: string): void {
  if (!CONSUMER_NAME_PATTERN.test(consumer)) {
    throw new UserError(`--consumer ${consumer} is not a consumer name (1-64 of A-Z a-z 0-9 _ . -)`);
  }
}

/** `--endpoint`: DynamoDB Local's (or another DynamoDB endpoint's) URL, checked. */
export function dynamoDbEndpointFlag(values: Values): string | undefined {
  return endpointFlag('endpoint', stringFlag(values.endpoint), 'http://127.0.0.1:8000');
}

/** `--endpoint` names a DynamoDB endpoint: with a Postgres target it is a mistake, said in one line. */
export function refuseEndpointWithPostgres(endpoint: string | undefined, what: 'inbox' | 'outbox'): void {
  if (endpoint !== undefined) {
    throw new UserError(`--endpoint is DynamoDB's: a Postgres ${what} is reached through --postgres URL`);
  }
}

export function endpointFlag(flag: string, value: string | undefined, example: string): string | undefined {
  if (value !== undefined && !/^https?:\/\/[^/]+/.test(value)) {
    throw new UserError(`--${flag} ${value} is not a URL: e.g. ${example}`);
  }
  return value;
}

export function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
