/**
 * The stack output keys `msk-inbox --stack NAME` reads for every consumer, and what each fills in: one
 * table for the tool (stack-outputs.ts) and for the construct side that declares them
 * (lib/operator-outputs.ts). No imports: the CDK side takes it without the AWS SDK. A Postgres inbox's
 * own keys are POSTGRES_STACK_OUTPUT_KEYS (lambdas/postgres/stack-outputs.ts).
 */
export const STACK_OUTPUT_KEYS = {
  functionName: 'FunctionName',
  inboxTableName: 'InboxTableName',
  consumerName: 'ConsumerName',
  failedBatchesBucket: 'FailedBatchesBucket',
  /** A consumer with an outbox (docs/outbox.md): the `msk-inbox outbox` commands' table. */
  outboxTableName: 'OutboxTableName',
} as const;
