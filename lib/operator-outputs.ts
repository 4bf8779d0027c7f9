import { CfnOutput, Stack } from 'aws-cdk-lib';
import { POSTGRES_STACK_OUTPUT_KEYS } from '../lambdas/postgres/stack-outputs.js';
import { STACK_OUTPUT_KEYS } from '../operator/stack-output-keys.js';
import type { KafkaConsumer } from './kafka-consumer.js';

/**
 * Declares on the consumer's stack the outputs `msk-inbox --stack NAME` reads (docs/operate.md#where-it-looks,
 * docs/operate.md#postgres): the function, the consumer's name, the failure bucket, its outbox table
 * (docs/operate.md#outbox), and where its inbox is: the DynamoDB table, or the Postgres host, port,
 * database, schema, TLS and login (the IAM user, or the secret's ARN, never a password). Output keys
 * are logical ids, so they are made on the stack itself: one consumer per stack has them (a second call
 * on the same stack fails on the repeated ids).
 */
export function addOperatorOutputs(consumer: KafkaConsumer): CfnOutput[] {
  const stack = Stack.of(consumer);
  const outputs: [string, string | undefined][] = [
    [STACK_OUTPUT_KEYS.inboxTableName, consumer.inboxTable?.tableName],
    [STACK_OUTPUT_KEYS.functionName, consumer.function.functionName],
    [STACK_OUTPUT_KEYS.consumerName, consumer.consumerName],
    [STACK_OUTPUT_KEYS.failedBatchesBucket, consumer.failureBucket?.bucketName],
    [STACK_OUTPUT_KEYS.outboxTableName, consumer.outbox?.tableName],
  ];
  const postgres = consumer.postgres;
  if (postgres !== undefined) {
    const { auth } = postgres;
    const keys = POSTGRES_STACK_OUTPUT_KEYS;
    outputs.push(
      [keys.host, postgres.host],
      [keys.port, postgres.port],
      [keys.database, postgres.databaseName],
      [keys.schema, postgres.schema],
      [keys.tls, postgres.tls],
      [keys.auth, 'iam' in auth ? 'iam' : 'secret'],
      [keys.user, 'iam' in auth ? auth.iam.user : undefined],
      [keys.secretArn, 'secret' in auth ? auth.secret.secretArn : undefined],
    );
  }
  return outputs
    .filter((output): output is [string, string] => output[1] !== undefined)
    .map(([key, value]) => new CfnOutput(stack, key, { value }));
}
