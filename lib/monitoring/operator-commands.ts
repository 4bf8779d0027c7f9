/**
 * The `msk-inbox` command lines an alarm's description gives the operator (docs/operate.md,
 * docs/deploy.md#alarms): ready to paste, with this consumer's own flags filled in at deploy time.
 * A test runs each of them with `--help` against the tool, so a renamed command or flag fails the build.
 */
import { Stack } from 'aws-cdk-lib';
import type { KafkaConsumer } from '../kafka-consumer.js';

/** The flags that point the tool at this consumer: its name, inbox table and region. */
function targetFlags(consumer: KafkaConsumer): string {
  return `--consumer ${consumer.consumerName} --table ${consumer.inboxTable.tableName} --region ${Stack.of(consumer).region}`;
}

export function quarantinedRunbook(consumer: KafkaConsumer): string {
  const flags = targetFlags(consumer);
  return [
    `First: npx msk-inbox quarantine list ${flags} (each row: the reason, the record; quarantine show ID for one).`,
    `Once the cause is fixed: npx msk-inbox quarantine replay --all --function ${consumer.function.functionName} ${flags}.`,
    'To give up on one: quarantine discard ID --why TEXT.',
  ].join(' ');
}

export function recordsDroppedRunbook(consumer: KafkaConsumer): string {
  const flags = targetFlags(consumer);
  const bucket = consumer.failureBucket.bucketName;
  return [
    `First: npx msk-inbox failed-batches list --bucket ${bucket} ${flags}.`,
    `Fix the cause, then: npx msk-inbox failed-batches replay --all --bucket ${bucket} --function ${consumer.function.functionName} ${flags} (records already applied come back as duplicates).`,
  ].join(' ');
}
