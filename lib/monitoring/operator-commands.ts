/**
 * The `msk-inbox` command lines an alarm's description gives the operator (docs/operate.md,
 * docs/deploy.md#alarms): ready to paste, with this consumer's own flags filled in at deploy time.
 * A test runs each of them with `--help` against the tool, so a renamed command or flag fails the build.
 */
import { Stack } from 'aws-cdk-lib';
import type { KafkaConsumer } from '../kafka-consumer.js';

/**
 * The flags that point the tool at this consumer: its name, inbox table and region. A Postgres inbox is
 * found through the stack's outputs instead (addOperatorOutputs, lib/operator-outputs.ts).
 */
function targetFlags(consumer: KafkaConsumer): string {
  const stack = Stack.of(consumer);
  const inbox =
    consumer.inboxTable === undefined
      ? `--stack ${stack.stackName}`
      : `--table ${consumer.inboxTable.tableName}`;
  return `--consumer ${consumer.consumerName} ${inbox} --region ${stack.region}`;
}

export function quarantinedRunbook(consumer: KafkaConsumer): string {
  const flags = targetFlags(consumer);
  return [
    `First: npx msk-inbox quarantine list ${flags} (each row: the reason, the record; quarantine show ID for one).`,
    `Once the cause is fixed: npx msk-inbox quarantine replay --all --function ${consumer.function.functionName} ${flags}.`,
    'To give up on one: quarantine discard ID --why TEXT.',
  ].join(' ');
}

/**
 * Where the given-up records are and how to get them applied: the tool reads the S3 destination's
 * objects (the whole batch); the other destinations hold the records themselves (a Kafka topic) or
 * only their offsets (SQS, SNS), docs/deploy.md#event-source-options.
 */
export function recordsDroppedRunbook(consumer: KafkaConsumer): string {
  const destination = consumer.failureDestination;
  const bucket = consumer.failureBucket;
  if (bucket !== undefined) {
    const flags = `--bucket ${bucket.bucketName} ${targetFlags(consumer)}`;
    return [
      'The failure bucket holds each batch whole.',
      `First: npx msk-inbox failed-batches list ${flags}.`,
      `Fix the cause, then: npx msk-inbox failed-batches replay --all --function ${consumer.function.functionName} ${flags} (records already applied come back as duplicates).`,
    ].join(' ');
  }
  const produceBack = `once the cause is fixed, produce them to ${consumer.topic} again: the inbox makes records already applied duplicates.`;
  switch (destination.kind) {
    case 'kafka-topic':
      return `First: read the failed records from the topic ${destination.topic} of the same cluster; ${produceBack}`;
    case 'sqs':
      return `First: the queue ${destination.queue.queueName} has each failed batch's partitions and offset ranges (not the records): read those records from ${consumer.topic}; ${produceBack}`;
    case 'sns':
      return `First: the notifications on ${destination.topic.topicName} have each failed batch's partitions and offset ranges (not the records): read those records from ${consumer.topic}; ${produceBack}`;
    default:
      return `First: open the failure destination; ${produceBack}`;
  }
}
