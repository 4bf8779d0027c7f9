/**
 * The stack output keys `msk-inbox --stack NAME` reads, and what each fills in: one table for the tool
 * (stack-outputs.ts) and for the construct side that declares them (lib/operator-outputs.ts). No imports:
 * the CDK side takes it without the AWS SDK.
 */
export const STACK_OUTPUT_KEYS = {
  functionName: 'FunctionName',
  inboxTableName: 'InboxTableName',
  consumerName: 'ConsumerName',
  failedBatchesBucket: 'FailedBatchesBucket',
  /** A Postgres inbox: where it is and how to log in (never a password: a user for IAM, or a secret's ARN). */
  postgresHost: 'PostgresHost',
  postgresPort: 'PostgresPort',
  postgresDatabase: 'PostgresDatabase',
  postgresSchema: 'PostgresSchema',
  postgresAuth: 'PostgresAuth',
  postgresUser: 'PostgresUser',
  postgresSecretArn: 'PostgresSecretArn',
} as const;

export type StackOutputField = keyof typeof STACK_OUTPUT_KEYS;
