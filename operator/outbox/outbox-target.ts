/**
 * Where `msk-inbox outbox ...` looks (docs/operate.md#outbox): the DynamoDB outbox table (`--outbox-table`,
 * else the stack's OutboxTableName output, else OUTBOX_TABLE_NAME as the consumer reads it) or a Postgres
 * schema (`--postgres URL`, or a stack with Postgres outputs), and which consumer's events: `--consumer`,
 * else the stack's ConsumerName, else CONSUMER_NAME, as the quarantine commands find it; with none of
 * them, every consumer's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UserError } from '../cli/user-error.js';
import { withLocalFallback } from '../local-fallback.js';
import {
  checkConsumerName,
  dynamoDbEndpointFlag,
  postgresOf,
  refuseEndpointWithPostgres,
  stringFlag,
} from '../operator-target.js';
import { POSTGRES_FLAGS, POSTGRES_HELP } from '../postgres-flags.js';
import { readStackOutputs, STACK_OUTPUT_KEYS } from '../stack-outputs.js';
import { DynamoDbOperatorOutbox } from './dynamodb-outbox.js';
import type { OperatorOutbox } from './operator-outbox.js';

export const OUTBOX_FLAGS = {
  consumer: { type: 'string' },
  'outbox-table': { type: 'string' },
  ...POSTGRES_FLAGS,
  region: { type: 'string' },
  endpoint: { type: 'string' },
  profile: { type: 'string' },
  stack: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const OUTBOX_COMMON_HELP = `Common flags:
  --consumer NAME       one consumer's events (default: $CONSUMER_NAME, else every consumer's)
  --outbox-table NAME   the DynamoDB outbox table (default: $OUTBOX_TABLE_NAME)
${POSTGRES_HELP.replace('instead of --table', 'instead of --outbox-table')}
  --region R            AWS region (default: the SDK's)
  --endpoint URL        DynamoDB Local or another AWS-compatible endpoint (docs/operate.md#credentials-at-an-endpoint)
  --profile P           a profile of the shared AWS config (default: $AWS_PROFILE)
  --stack NAME          the deployed stack: its outputs give what these flags do not (OutboxTableName,
                        ConsumerName; for Postgres PostgresHost, ...)
  --json                machine-readable output on stdout
  --verbose             stack traces for errors`;

export interface OutboxTarget {
  /** Undefined: every consumer's rows. */
  readonly consumer: string | undefined;
  readonly outbox: OperatorOutbox;
}

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** Runs `use` on the outbox the flags name, and closes its connections however it ends. */
export async function withOutboxTarget<T>(
  values: Values,
  use: (target: OutboxTarget) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const target = await outboxTarget(values, env);
  try {
    return await use(target);
  } finally {
    await target.outbox.close().catch(() => undefined);
  }
}

async function outboxTarget(values: Values, env: NodeJS.ProcessEnv): Promise<OutboxTarget> {
  const stackName = stringFlag(values.stack);
  const region = stringFlag(values.region);
  const profile = stringFlag(values.profile);
  const stack = stackName === undefined ? undefined : await readStackOutputs(stackName, { region, profile });
  const consumer = stringFlag(values.consumer) ?? stack?.consumerName ?? stringFlag(env.CONSUMER_NAME);
  if (consumer !== undefined) checkConsumerName(consumer);
  const endpoint = dynamoDbEndpointFlag(values);
  // The consumer names the pool's connections (application_name) only.
  const postgres = await postgresOf(values, stack, consumer ?? 'outbox', 'outbox-table');
  if (postgres !== undefined) {
    refuseEndpointWithPostgres(endpoint, 'outbox');
    // Loaded only for a Postgres outbox, with the `pg` driver.
    const [{ PostgresOperatorOutbox }, { postgresAdvice }] = await Promise.all([
      import('./postgres-outbox.js'),
      import('../postgres-target.js'),
    ]);
    const outbox = new PostgresOperatorOutbox({
      ...postgres,
      advice: (error) => postgresAdvice(postgres, error),
    });
    return { consumer, outbox };
  }
  const tableName =
    stringFlag(values['outbox-table']) ?? stack?.outboxTableName ?? stringFlag(env.OUTBOX_TABLE_NAME);
  if (tableName === undefined) {
    const orStack =
      stack === undefined
        ? ''
        : `; stack ${stack.stackName} has no ${STACK_OUTPUT_KEYS.outboxTableName} output`;
    throw new UserError(
      `which outbox? pass --outbox-table NAME (or set OUTBOX_TABLE_NAME), or --postgres URL for a Postgres outbox${orStack}`,
    );
  }
  const make = (fallback: object) =>
    new DynamoDBClient({
      maxAttempts: 3,
      ...(region === undefined ? {} : { region }),
      ...(profile === undefined ? {} : { profile }),
      ...(endpoint === undefined ? {} : { endpoint }),
      ...fallback,
    });
  const { client, fallback } = await withLocalFallback(make, endpoint, profile, env);
  const outbox = new DynamoDbOperatorOutbox({
    client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    tableName,
    endpoint,
    region: region ?? fallback.region,
  });
  return { consumer, outbox };
}
