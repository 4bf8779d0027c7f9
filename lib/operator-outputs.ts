import { CfnOutput, Stack } from 'aws-cdk-lib';
import { STACK_OUTPUT_KEYS, type StackOutputField } from '../operator/stack-output-keys.js';
import type { KafkaConsumer } from './kafka-consumer.js';

/**
 * Declares on the consumer's stack the outputs `msk-inbox --stack NAME` reads (docs/operate.md#where-it-looks):
 * the function, the consumer's name, the failure bucket, and where its inbox is: the DynamoDB table, or
 * the Postgres host, port, database, schema and login (the IAM user, or the secret's ARN, never a
 * password). Output keys are logical ids, so they are made on the stack itself: one consumer per stack
 * has them (a second call on the same stack fails on the repeated ids).
 */
export function addOperatorOutputs(consumer: KafkaConsumer): CfnOutput[] {
  const stack = Stack.of(consumer);
  const values: Partial<Record<StackOutputField, string>> = {
    inboxTableName: consumer.inboxTable?.tableName,
    functionName: consumer.function.functionName,
    consumerName: consumer.consumerName,
    failedBatchesBucket: consumer.failureBucket?.bucketName,
  };
  const postgres = consumer.postgres;
  if (postgres !== undefined) {
    Object.assign(values, {
      postgresHost: postgres.host,
      postgresPort: postgres.port,
      postgresDatabase: postgres.databaseName,
      postgresSchema: postgres.schema,
      postgresAuth: 'iam' in postgres.auth ? 'iam' : 'secret',
      postgresUser: 'iam' in postgres.auth ? postgres.auth.iam.user : undefined,
      postgresSecretArn: 'secret' in postgres.auth ? postgres.auth.secret.secretArn : undefined,
    } satisfies Partial<Record<StackOutputField, string | undefined>>);
  }
  return (Object.entries(values) as [StackOutputField, string | undefined][])
    .filter((entry): entry is [StackOutputField, string] => entry[1] !== undefined)
    .map(([field, value]) => new CfnOutput(stack, STACK_OUTPUT_KEYS[field], { value }));
}
